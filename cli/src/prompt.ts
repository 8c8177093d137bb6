// Reads a secret from the terminal without echoing it (raw mode; each keystroke is consumed, nothing printed).
import { openSync } from "node:fs";
import { ReadStream } from "node:tty";

export class NoTerminalError extends Error {
  override readonly name = "NoTerminalError";
}

export async function promptSecret(question: string): Promise<string> {
  let input: NodeJS.ReadStream | ReadStream = process.stdin;
  if (!process.stdin.isTTY) {
    // Piped stdin: prompt on the controlling terminal if there is one.
    try {
      const fd = openSync("/dev/tty", "r");
      input = new ReadStream(fd);
    } catch {
      throw new NoTerminalError(`${question.trim()} needs a terminal (or use the environment variable)`);
    }
  }
  const tty = input as ReadStream;
  // Raw mode (no echo) before the question: a key typed the moment the question shows must not be echoed.
  tty.setRawMode(true);
  process.stderr.write(question);
  tty.resume();
  tty.setEncoding("utf8");
  return new Promise<string>((resolve, reject) => {
    let value = "";
    const done = (error?: Error) => {
      tty.setRawMode(false);
      tty.pause();
      tty.removeListener("data", onData);
      process.stderr.write("\n");
      if (input !== process.stdin) tty.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return done();
        if (ch === "\u0003") return done(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    tty.on("data", onData);
  });
}
