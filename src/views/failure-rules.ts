/**
 * Which lines of a failed command explain the failure: one rule per kind of failure line, tested on
 * each line of the text view (colours and redraws already gone). A rule says how many lines around
 * a match belong to it (a code frame after a compiler error, the frame before a Python exception).
 * The first rule that matches a line is its rule. Written after the shapes that compilers, test
 * runners and loggers print (and that VS Code's problem matchers and test reporters look for);
 * `examples` are lines each rule must match, and test/views/failure-rules.test.ts holds them to it,
 * along with lines no rule may match.
 */
import { LiteralSet } from "./literal-set.ts";

export interface FailureRule {
  readonly name: string;
  readonly pattern: RegExp;
  /** Lines of context shown before and after a matching line. */
  readonly before: number;
  readonly after: number;
  readonly examples: readonly string[];
}

const rule = (name: string, pattern: RegExp, before: number, after: number, examples: readonly string[]): FailureRule => ({
  name,
  pattern,
  before,
  after,
  examples,
});

export const FAILURE_RULES: readonly FailureRule[] = [
  // Compilers and type checkers: the location line, then the code frame the pretty formats print.
  rule("tsc", /^error TS\d+: |^\S.*\(\d+,\d+\): error TS\d+:|^\S.*:\d+:\d+ - error TS\d+:/, 0, 4, [
    "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "src/a.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'.",
  ]),
  rule("bun-test", /^\(fail\) |^error: expect\(/, 3, 5, ["(fail) math > adds [0.12ms]", "error: expect(received).toBe(expected)"]),
  rule("rustc", /^error\[E\d{4}\]: |^error: (could not compile|aborting due to)/, 0, 6, [
    "error[E0308]: mismatched types",
    "error: could not compile `demo` due to previous error",
  ]),
  rule("gcc", /^\S.*:\d+(:\d+)?: (fatal )?error: |^\S.*:\d+: undefined reference to |^collect2: error: /, 0, 3, [
    "main.c:3:5: error: expected ';' before 'return'",
    "main.c:1:10: fatal error: nope.h: No such file or directory",
    "main.o:3: undefined reference to `foo'",
  ]),
  rule("go", /^\S+\.go:\d+:\d+: |^\s+\S+_test\.go:\d+: /, 0, 1, [
    "./main.go:5:2: undefined: fmt.Printn",
    "    main_test.go:12: got 2, want 3",
  ]),
  rule("eslint", /^\s+\d+:\d+\s+error\s+/, 0, 0, ["   3:7  error  'x' is assigned a value but never used  no-unused-vars"]),
  // Test runners: the failed test, the assertion and its expected/received diff.
  rule("jest", /^\s*● |^FAIL \S/, 0, 6, ["  ● math › adds", "FAIL src/math.test.ts"]),
  rule("test-mark", /^\s*[✗✘✖×]\s+\S/, 0, 2, ["  ✗ adds two numbers", " × adds (3 ms)"]),
  rule("pytest", /^E\s{3}|^FAILED \S|^_{3,} \S.* _{3,}$|^\S+\.py:\d+: \w+(Error|Exception)$/, 0, 0, [
    "E       assert 2 == 3",
    "FAILED test_math.py::test_adds - assert 2 == 3",
    "_________________________ test_adds _________________________",
    "test_math.py:4: AssertionError",
  ]),
  rule("go-test", /^--- FAIL: |^FAIL(\t|$)|^panic: /, 0, 2, [
    "--- FAIL: TestAdds (0.00s)",
    "FAIL\texample.com/demo\t0.003s",
    "panic: runtime error: index out of range [3] with length 3",
  ]),
  rule("cargo-test", /^test \S.* \.\.\. FAILED$|panicked at /, 0, 3, [
    "test tests::adds ... FAILED",
    "thread 'main' panicked at src/main.rs:2:5:",
  ]),
  // Tracebacks: the header, and the exception line with the last frame before it.
  rule("traceback", /^Traceback \(most recent call last\):$/, 0, 0, ["Traceback (most recent call last):"]),
  rule(
    "exception",
    /^(Uncaught )?([A-Za-z_][\w.]*)?(Error|Exception|Exit|Interrupt|Failure)( \[\w+\])?(: |$)|^Exception in thread |^Caused by: /,
    3,
    3,
    [
      "ZeroDivisionError: division by zero",
      "Error: boom",
      "TypeError: Cannot read properties of undefined (reading 'x')",
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x.js'",
      'Exception in thread "main" java.lang.NullPointerException',
    ],
  ),
  // Package managers and build tools.
  rule("npm", /^npm (ERR!|error) |^error Command failed|ERR_PNPM_\w+| ELIFECYCLE /, 0, 0, [
    "npm ERR! code ELIFECYCLE",
    'npm error Missing script: "tset"',
    " ELIFECYCLE  Command failed with exit code 1.",
  ]),
  rule("make", /^g?make(\[\d+\])?: \*\*\* /, 0, 0, ["make: *** [Makefile:3: all] Error 1"]),
  // The shell and the system.
  rule(
    "shell",
    /: command not found$|: No such file or directory$|: Permission denied$|^Segmentation fault|\(core dumped\)|^Killed$/,
    0,
    0,
    ["bash: tsx: command not found", "cat: nope.txt: No such file or directory", "Segmentation fault (core dumped)"],
  ),
  // Log lines: a level word, or a line that starts by saying it failed.
  rule("log-level", /\b(ERROR|FATAL|CRITICAL|PANIC|EMERG)\b|\blevel=(error|fatal)\b|"level":\s*"(error|fatal)"/, 0, 1, [
    "2026-11-26 12:00:01 ERROR db: connection refused",
    "[FATAL] out of memory",
    'time=12:00 level=error msg="bind failed"',
  ]),
  rule("error-prefix", /^\s*\[?(error|fatal|failed|failure)\]?(\[[\w-]+\])?: /i, 0, 4, [
    'error: script "build" exited with code 1',
    "fatal: not a git repository",
  ]),
  rule("failed-word", /\bFAIL(ED|URE)?\b/, 0, 1, ["Build FAILED.", "[FAIL] login test"]),
];

/** Lines that look near a failure line and are not one (a rule that matches them is too eager). */
export const NOT_FAILURE_LINES: readonly string[] = [
  "Found 0 errors. Watching for file changes.",
  "0 errors, 0 warnings",
  "no errors found",
  "error handling improved in v2",
  " 12 pass",
  "test tests::adds ... ok",
  "  ✓ adds two numbers",
  "PASS src/math.test.ts",
  "INFO server listening on :8080",
  "    at Object.<anonymous> (/app/a.js:1:7)",
  "Compiling demo v0.1.0",
];

/**
 * A word at least one of which every rule's matches hold (the test below holds each example to
 * it): most lines hold none, and one test of them is cheaper than one per rule.
 */
export const ANY_RULE =
  /err|fail|fatal|panic|crit|emerg|exception|traceback|interrupt|exit|killed|segmentation|dumped|undefined|\.go:\d|not found|no such file|permission denied|caused by|[✗✘✖×●]|^E\s{3}|_{3}|\*\*\*/i;

/**
 * ANY_RULE's words as literals for one pass over a line (views/literal-set.ts): a line that holds
 * none of them, none of its marks and does not begin with an E cannot match ANY_RULE, so it is
 * passed over without the regex (a case-blind alternation tried at every character: a third of
 * `derun why`'s time on a long log). The literals are ANY_RULE's or shorter (".go:" for `\.go:\d`),
 * so they let through at least every line it matches; the regex still decides.
 */
const ANY_RULE_WORDS = LiteralSet.of(
  [
    "err",
    "fail",
    "fatal",
    "panic",
    "crit",
    "emerg",
    "exception",
    "traceback",
    "interrupt",
    "exit",
    "killed",
    "segmentation",
    "dumped",
    "undefined",
    ".go:",
    "not found",
    "no such file",
    "permission denied",
    "caused by",
    "___",
    "***",
  ],
  { unicodeLower: false },
)!;
/**
 * What makes a line of raw bytes a candidate for the failure view's prefilter (./failure-scan.ts),
 * looked for with colour codes removed, as the text view removes them: ANY_RULE's words, and what
 * else could make the line's *masked* text match a rule or move the masking on. Masking writes `*`
 * (never a letter), so it can add only ANY_RULE's `***`, and then only the rules that need no other
 * word can match: make's (`make: *** `) and npm's ` ELIFECYCLE `. A PEM key's BEGIN line changes how
 * the masking reads the lines after it. "\ne" is ANY_RULE's `^E\s{3}` (the first character an E).
 */
export const FAILURE_RAW_WORDS = LiteralSet.of([...ANY_RULE_WORDS.literals, "\ne", "\nmake", "\ngmake", "elifecycle", "-----begin"], {
  unicodeLower: false,
})!;

/** ANY_RULE's marks (outside ASCII, so not among the literals). */
const ANY_RULE_MARKS = /[✗✘✖×●]/;

/** Whether `line` may match ANY_RULE (never false when it does). */
const mayFail = (line: string): boolean =>
  line.charCodeAt(0) === 0x45 || line.charCodeAt(0) === 0x65 || ANY_RULE_WORDS.anyIn(line) || ANY_RULE_MARKS.test(line);

/** The first rule whose pattern matches `text` (at most its first 2,000 characters are tested). */
export function failureRuleOf(text: string): FailureRule | undefined {
  const line = text.length > 2000 ? text.slice(0, 2000) : text;
  if (!mayFail(line) || !ANY_RULE.test(line)) return undefined;
  for (const r of FAILURE_RULES) if (r.pattern.test(line)) return r;
  return undefined;
}
