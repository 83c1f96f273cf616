/**
 * The built-in redaction rules: one entry per kind of secret, as data. Written for derun after
 * reading how gitleaks (an id, a regex with a secret group, keywords, an entropy floor) and Warp
 * (a list of regexes for terminal output) describe theirs; none is copied. A line is handed to a
 * rule only when it holds one of the rule's keywords (case-insensitively): most lines hold none,
 * which keeps masking cheap. The masked part is the named group `s` (the first of `s`, `s2`, `s3`
 * that matched), or the whole match. test/secrets/redact-rules.test.ts tests each rule.
 */

export interface RedactRule {
  /** Shown nowhere but in the docs and in the user's config (to turn one off). */
  readonly id: string;
  readonly description: string;
  /** Lower-case strings, one of which a line must hold for the rule to run; empty: always runs. */
  readonly keywords: readonly string[];
  /** A JavaScript regular expression (flags `g` and `d` are added). */
  readonly pattern: string;
  readonly flags?: string;
  /** Least length of the secret. */
  readonly minLength?: number;
  /** Least Shannon entropy of the secret, in bits per character. */
  readonly entropy?: number;
  /**
   * A generic rule (any value after a secret-sounding key): its candidates are checked against the
   * shapes derun never masks (commit ids, sha sums, UUIDs, digests, paths, versions, placeholders).
   */
  readonly generic?: boolean;
  /**
   * A cheap regular expression (tested with the `m` flag) that matches wherever `pattern` does: a
   * text it finds nothing in is not given to `pattern` (a rule without keywords runs over every byte
   * of a read).
   */
  readonly prefilter?: string;
}

/**
 * A key name holding a secret-sounding word anywhere in it (`DB_PASSWORD`, `client-secret`,
 * `api.key`, `auth_token_for_the_…_cluster`), of any length. Begun only where a run of name
 * characters begins, the word looked for ahead inside the run: each run is looked at once. (A name
 * matched as "name characters, the word, name characters" began a look to the run's end and back at
 * each `-` or `_` of a base64url run: 64 KB cost 1.5 s; capped at 64 a side, a longer name's secret
 * was shown.)
 */
const keyNamed = (words: string): string => `(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*?(?:${words}))[A-Za-z0-9_.-]+`;
/** Between a key and its value: `=`, `:`, `:=`, `=>`, with quotes and blanks around. */
const ASSIGN = `["']?[ \\t]*(?:=>|:=|=|:)[ \\t]*`;
/** A value: quoted (up to its closing quote), or a word. */
const VALUE = `(?:"(?<s>[^"\\n]+)"|'(?<s2>[^'\\n]+)'|(?<s3>[^\\s"'\`,;]+))`;
/**
 * Where a token without a distinctive prefix may begin: not inside a word (`(?<![…])`), unless
 * what stands before it is an escape written out (`\n`, `\t` in a JSON log, `\x0a`, `\x3b` in a
 * shell's command-line mark) or a colour
 * escape (`ESC[33m`, or `\033[33m` written out): the letter that ends those is not a word's.
 */
const after = (word: string): string =>
  `(?:(?<![${word}])|(?<=\\\\[nrt]|\\\\x[0-9a-fA-F]{2})|(?<=(?:\\x1b|\\\\(?:033|x1[bB]|e|u001[bB]))\\[[0-9;]*m))`;

/** A token's value: as VALUE, but a word stops at `@` (a token in a URL before its host). */
const TOKEN_VALUE = `(?:"(?<s>[^"\\n]+)"|'(?<s2>[^'\\n]+)'|(?<s3>[^\\s"'\`,;@]+))`;

export const RULES: readonly RedactRule[] = [
  {
    id: "github-token",
    description:
      "GitHub tokens: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server (ghs_), refresh (ghr_), fine-grained (github_pat_)",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: "(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})",
  },
  {
    id: "gitlab-token",
    description: "GitLab tokens: personal, project and group (glpat-), deploy (gldt-), pipeline trigger (glptt-), runner (glrt-)",
    keywords: ["glpat-", "gldt-", "glptt-", "glrt-"],
    pattern: "gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{16,}",
  },
  {
    id: "aws-access-key-id",
    description: "AWS access key ids (AKIA, ASIA and the other four-letter kinds, then 16 base-32 characters)",
    keywords: ["akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"],
    pattern: "(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}(?![A-Za-z0-9])",
  },
  {
    id: "aws-secret-access-key",
    description: "AWS secret access keys: 40 base-64 characters on a line that names AWS",
    keywords: ["aws"],
    pattern:
      `${after("A-Za-z0-9/+")}(?<s>(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])` +
      "[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
  },
  {
    id: "anthropic-key",
    description: "Anthropic API keys (sk-ant-)",
    keywords: ["sk-ant-"],
    pattern: "sk-ant-[A-Za-z0-9_-]{20,}",
  },
  {
    id: "openai-key",
    description: "OpenAI API keys (sk-, sk-proj-, sk-svcacct-, sk-admin-)",
    keywords: ["sk-"],
    pattern: `sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|${after("A-Za-z0-9_-")}sk-(?!ant-|proj-|svcacct-|admin-)[A-Za-z0-9_-]{20,}`,
    entropy: 3,
  },
  {
    id: "slack-token",
    description: "Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-) and incoming webhook URLs",
    keywords: ["xox", "hooks.slack.com"],
    pattern: "xox[abposr]-[A-Za-z0-9-]{10,}|hooks\\.slack\\.com/services/(?<s>[A-Za-z0-9/_-]{20,})",
  },
  {
    id: "stripe-key",
    description: "Stripe secret and restricted keys (sk_live_, rk_live_, and their _test_ kin)",
    keywords: ["_live_", "_test_"],
    pattern: "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
  },
  {
    id: "google-api-key",
    description: "Google API keys (AIza and 35 characters)",
    keywords: ["aiza"],
    pattern: "AIza[A-Za-z0-9_-]{35}",
  },
  {
    id: "npm-token",
    description: "npm access tokens (npm_ and 36 characters)",
    keywords: ["npm_"],
    pattern: "npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])",
  },
  {
    id: "jwt",
    description: "JSON Web Tokens: three base64url parts, the first two JSON objects (eyJ)",
    keywords: ["eyj"],
    pattern: "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}",
  },
  {
    id: "private-key",
    description: "A PEM private key written on one line (with \\n escapes, as in JSON): everything between its BEGIN and END lines",
    keywords: ["private key"],
    pattern: "-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?<s>.+?)-----END",
    minLength: 8,
  },
  {
    id: "url-credentials",
    description: "The password in a URL (scheme://user:password@host)",
    keywords: ["://"],
    pattern: `${after("A-Za-z0-9+.-")}[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/@'"]*:(?<s>[^\\s@/'"]{3,})@`,
    generic: true,
  },
  {
    id: "authorization-header",
    description: "The credentials of an Authorization header or a Bearer token (curl -v, HTTP logs)",
    keywords: ["authorization", "bearer"],
    pattern:
      `(?:authorization[ \\t]*:[ \\t]*(?:bearer|basic|token|digest|bot|apikey)?|${after("A-Za-z")}bearer)` +
      "[ \\t]+(?<s>[A-Za-z0-9._~+/=:-]{8,})",
    flags: "i",
    generic: true,
  },
  {
    id: "user-password-flag",
    description: "The password in curl's `-u user:password` (and `--user`, `--proxy-user` of any command)",
    keywords: ["curl", "-user"],
    pattern: `(?:\\bcurl\\b[^\\n]*?[\\s'"]-[uU][ \\t]*|(?:^|[\\s'"])--(?:proxy-)?user(?:[ \\t]+|=))['"]?[^\\s:'"]+:(?<s>[^\\s'"]+)`,
    generic: true,
  },
  {
    id: "password-assignment",
    description: 'The value given to a password-like key (PASSWORD=…, "passwd": "…", --db-password=…), whatever its entropy',
    keywords: ["passw", "pwd", "passphrase"],
    pattern: `${keyNamed("passw(?:or)?d|pwd|passphrase")}${ASSIGN}${VALUE}`,
    flags: "i",
    minLength: 4,
    generic: true,
  },
  {
    id: "secret-assignment",
    description:
      "A random-looking value (8 characters or more, a digit among them, entropy at least 3 bits a character) " +
      "given to a key named like a secret: " +
      "*TOKEN*, *SECRET*, *API_KEY*, *ACCESS_KEY*, *PRIVATE_KEY*, *CREDENTIAL*, *AUTH*, *_KEY",
    keywords: ["token", "secret", "key", "credential", "auth"],
    pattern:
      keyNamed("token|secret|api[_.-]?key|access[_.-]?key|private[_.-]?key|credentials?|auth(?!or)|_key\\b") +
      // The value holds a digit: a random token almost always does, and a word in prose such as
      // "secrets: derun_last_failure" (a commit subject) does not.
      `${ASSIGN}(?=\\S*[0-9])${TOKEN_VALUE}`,
    flags: "i",
    minLength: 8,
    entropy: 3,
    generic: true,
  },
  {
    id: "private-key-body",
    description: "A line of a PEM private key's body (base-64 only, mixed case and digits), inside its BEGIN/END lines or on its own",
    keywords: [],
    // 16 base-64 characters in a row that end their line (after `==` and blanks): both branches below
    // hold them (s 16 or more, s2 40 or more) right before their `$`. A log line with a path in it
    // (`/api/v1/items/1234`) has the run, not at its end: the pattern is not run over its page. A
    // regular expression (native from a server's first page on), not a loop of derun's own.
    prefilter: "[A-Za-z0-9+/]{16}={0,2}[ \\t\\r]*$",
    pattern:
      "^[ \\t]*(?<s>(?=[A-Za-z0-9+/=]*[A-Z])(?=[A-Za-z0-9+/=]*[a-z])(?=[A-Za-z0-9+/=]*[0-9])[A-Za-z0-9+/]{16,}={0,2})[ \\t\\r]*$" +
      // Behind a prefix (`cat -n`'s number, `grep -A`'s `file-`, a log's time and level): a whole
      // body line (40 base-64 characters or more) ending the line, not a digest (`sha512-…`).
      "|(?<=[ \\t:|>-])(?<!sha[0-9]{1,3}-|sha[0-9]{1,3}:)" +
      "(?<s2>(?=[A-Za-z0-9+/=]*[A-Z])(?=[A-Za-z0-9+/=]*[a-z])(?=[A-Za-z0-9+/=]*[0-9])[A-Za-z0-9+/]{40,}={0,2})[ \\t\\r]*$",
  },
];
