// The conceptual question bank for skill verifications; each attempt draws four of these beside six computed
// questions (skill-attempts.ts). The score, passed and correct fields a client sends are never trusted.
import type { SkillName } from "./reputation.ts";

export const SKILL_PASS_SCORE = 80;
export const SKILL_RETAKE_SECONDS = 24n * 3600n;

export interface SkillQuestion {
  question: string;
  options: string[];
  answer: string;
}

const q = (question: string, options: string[], answer: string): SkillQuestion => {
  if (!options.includes(answer)) throw new Error(`answer not among options: ${question}`);
  return { question, options, answer };
};

export const QUESTION_BANK: Record<SkillName, SkillQuestion[]> = {
  "solidity-security": [
    q(
      "Which pattern prevents reentrancy by updating state before making external calls?",
      ["checks-effects-interactions", "pull-over-push", "proxy delegation", "commit-reveal"],
      "checks-effects-interactions",
    ),
    q(
      "Since which Solidity version do arithmetic overflows revert by default?",
      ["0.6.0", "0.7.0", "0.8.0", "0.5.0"],
      "0.8.0",
    ),
    q(
      "Why should tx.origin not be used for authorization?",
      [
        "a malicious contract called by the owner passes the check",
        "it costs more gas than msg.sender",
        "it is deprecated and reverts",
        "it is zero in internal calls",
      ],
      "a malicious contract called by the owner passes the check",
    ),
    q(
      "Which OpenZeppelin library wraps ERC-20 calls so tokens that return no value or false are handled safely?",
      ["SafeERC20", "Address", "SafeCast", "ECDSA"],
      "SafeERC20",
    ),
    q(
      "What does EIP-712 add to signed messages?",
      [
        "typed structured data bound to a domain (name, version, chainId, contract)",
        "message encryption",
        "signature aggregation",
        "gas refunds for signers",
      ],
      "typed structured data bound to a domain (name, version, chainId, contract)",
    ),
    q(
      "Which value of s makes an ECDSA signature malleable and is rejected by OpenZeppelin's ECDSA.recover?",
      ["s in the upper half of the curve order", "s equal to zero", "s below 2^128", "an even s"],
      "s in the upper half of the curve order",
    ),
    q(
      "What is the main risk of reading a price from a single DEX pool's spot reserves?",
      ["flash-loan price manipulation", "integer underflow", "storage collisions", "block gas limit"],
      "flash-loan price manipulation",
    ),
    q(
      "In an upgradeable proxy, what must an implementation contract use instead of a constructor?",
      [
        "an initializer function guarded against re-initialization",
        "a fallback function",
        "selfdestruct",
        "a modifier",
      ],
      "an initializer function guarded against re-initialization",
    ),
    q(
      "Which call forwards the caller's storage context to another contract's code?",
      ["delegatecall", "staticcall", "call", "create2"],
      "delegatecall",
    ),
    q(
      "What does the ERC-20 approve front-running issue let a spender do when an allowance is changed from N to M?",
      ["spend N and then M", "spend nothing", "mint new tokens", "freeze the owner's balance"],
      "spend N and then M",
    ),
  ],
  "typescript-testing": [
    q("Which node:test function groups related tests?", ["describe", "group", "suite.add", "bundle"], "describe"),
    q(
      "Which node:assert/strict method compares objects by structure?",
      ["deepEqual", "equal", "ok", "match"],
      "deepEqual",
    ),
    q(
      "What does a test double that records calls and returns canned answers, without real behaviour, usually get called?",
      ["a stub", "a fixture", "a snapshot", "a harness"],
      "a stub",
    ),
    q(
      "Why should an async test await the promise it asserts on?",
      [
        "otherwise a rejection may surface after the test has passed",
        "await makes the test run faster",
        "TypeScript refuses to compile otherwise",
        "assertions are synchronous only",
      ],
      "otherwise a rejection may surface after the test has passed",
    ),
    q(
      "Which TypeScript compiler option makes indexing an array return T | undefined?",
      ["noUncheckedIndexedAccess", "strictNullChecks", "noImplicitAny", "exactOptionalPropertyTypes"],
      "noUncheckedIndexedAccess",
    ),
    q(
      "What does property-based testing generate?",
      [
        "many random inputs checked against an invariant",
        "test names from function names",
        "mocks for every dependency",
        "code coverage reports",
      ],
      "many random inputs checked against an invariant",
    ),
    q(
      "What is a flaky test?",
      [
        "a test that passes or fails without any code change",
        "a test that always fails",
        "a test without assertions",
        "a test that is skipped",
      ],
      "a test that passes or fails without any code change",
    ),
    q(
      "Which assertion checks that an async function rejects?",
      ["assert.rejects", "assert.throws", "assert.fail", "assert.ifError"],
      "assert.rejects",
    ),
    q(
      "What does the TypeScript `satisfies` operator do?",
      [
        "checks an expression against a type without widening its inferred type",
        "casts a value to a type",
        "declares a runtime type guard",
        "asserts a value is not null",
      ],
      "checks an expression against a type without widening its inferred type",
    ),
    q(
      "Mutation testing measures what?",
      [
        "whether the tests fail when the code is deliberately changed",
        "how fast the tests run",
        "how many lines are executed",
        "memory use during tests",
      ],
      "whether the tests fail when the code is deliberately changed",
    ),
  ],
  "rust-coding": [
    q(
      "Which trait lets a type be duplicated with an implicit bitwise copy?",
      ["Copy", "Clone", "Send", "Default"],
      "Copy",
    ),
    q(
      "How many mutable references to a value may exist at the same time?",
      ["one", "two", "unlimited", "none ever"],
      "one",
    ),
    q(
      "What does the ? operator do on an Err value?",
      ["returns it early from the function", "panics", "ignores it", "logs it"],
      "returns it early from the function",
    ),
    q("Which smart pointer gives shared ownership across threads?", ["Arc", "Rc", "Box", "Cell"], "Arc"),
    q(
      "Which trait marks a type as safe to share by reference between threads?",
      ["Sync", "Send", "Unpin", "Sized"],
      "Sync",
    ),
    q(
      "What does a lifetime annotation like 'a describe?",
      [
        "how long a reference is valid relative to others",
        "how long a thread runs",
        "when memory is allocated",
        "the order of drop calls",
      ],
      "how long a reference is valid relative to others",
    ),
    q("Which macro builds a Vec from a list of values?", ["vec!", "list!", "array!", "collect!"], "vec!"),
    q(
      "What does `cargo clippy` provide?",
      ["lints for common mistakes and style", "a debugger", "a package registry", "a formatter"],
      "lints for common mistakes and style",
    ),
    q("Which enum represents an optional value?", ["Option", "Result", "Maybe", "Nullable"], "Option"),
    q(
      "What happens to a value when its owner goes out of scope?",
      ["it is dropped", "it is garbage collected later", "it leaks", "it moves to the heap"],
      "it is dropped",
    ),
  ],
  "python-data": [
    q("Which pandas method groups rows by column values?", ["groupby", "pivot", "merge", "melt"], "groupby"),
    q(
      "What does df.isna().sum() return?",
      ["the number of missing values per column", "the sum of all values", "the number of rows", "the column types"],
      "the number of missing values per column",
    ),
    q(
      "Which NumPy feature applies operations to arrays of different shapes?",
      ["broadcasting", "vectorization hints", "striding", "masking"],
      "broadcasting",
    ),
    q(
      "Why split data into training and test sets?",
      ["to estimate performance on unseen data", "to train faster", "to reduce memory use", "to remove outliers"],
      "to estimate performance on unseen data",
    ),
    q("Which join keeps all rows from both tables?", ["outer", "inner", "left", "cross"], "outer"),
    q(
      "What is data leakage?",
      [
        "information from the test set or the future influencing training",
        "a memory leak in pandas",
        "losing rows in a merge",
        "publishing private data",
      ],
      "information from the test set or the future influencing training",
    ),
    q("Which statistic is most robust to outliers?", ["median", "mean", "standard deviation", "range"], "median"),
    q("What does df.loc select by?", ["labels", "integer positions", "data types", "memory address"], "labels"),
    q(
      "Which file format stores columnar data with a schema and compression?",
      ["Parquet", "CSV", "JSON lines", "XML"],
      "Parquet",
    ),
    q(
      "What does a p-value measure?",
      [
        "the probability of data at least this extreme if the null hypothesis is true",
        "the probability the null hypothesis is true",
        "the effect size",
        "the sample size needed",
      ],
      "the probability of data at least this extreme if the null hypothesis is true",
    ),
  ],
};
