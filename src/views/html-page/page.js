// derun's script in an exported page: unpacks the recording (gzip, base64: the browser's own
// DecompressionStream, nothing fetched), mounts asciinema-player showing the last screen, and makes each
// chapter seek the player to its command.
const data = JSON.parse(document.getElementById("derun-data").textContent);

async function recording() {
  const bytes = Uint8Array.from(atob(data.cast), (c) => c.charCodeAt(0));
  const text = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(text).text();
}

const player = AsciinemaPlayer.create({ data: recording, parser: "asciicast" }, document.getElementById("player"), {
  cols: data.cols,
  rows: data.rows,
  // The last screen shows until play is pressed; play then starts from the beginning.
  poster: `npt:${data.endsAt}`,
  preload: true,
  fit: "width",
});

const chapters = [...document.querySelectorAll("#chapters [data-at]")];
chapters.forEach((chapter, i) => {
  chapter.addEventListener("click", () => {
    player.seek(Number(chapter.dataset.at));
    for (const other of document.querySelectorAll("#chapters .current")) other.classList.remove("current");
    chapter.closest("li").classList.add("current");
    try {
      history.replaceState(null, "", `#command-${i + 1}`);
    } catch {
      // A page opened where its address cannot change keeps it.
    }
  });
});

// A link to one command (`page.html#command-3`) opens the page at it.
const linked = /^#command-(\d+)$/.exec(location.hash);
if (linked) chapters[Number(linked[1]) - 1]?.click();
