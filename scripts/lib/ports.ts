// Finds which process holds a TCP port, so a stack left by a crashed run is reported by pid instead of being
// silently reused (or failing later with EADDRINUSE deep inside a service).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

export interface PortHolder {
  port: number;
  pid?: number;
  command?: string;
}

/** True when nothing listens on 127.0.0.1:`port` (we bind to loopback like the services do). */
export function portIsFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Socket inodes of listening TCP sockets on `port` (Linux /proc/net/tcp{,6}; empty elsewhere). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      // st 0A = LISTEN
      if (!local || cols[3] !== "0A") continue;
      if (Number.parseInt(local.split(":")[1] ?? "", 16) === port && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

function ownerOf(inodes: Set<string>): { pid: number; command: string } | undefined {
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) {
        let command = "";
        try {
          command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
        } catch {
          /* process ended meanwhile */
        }
        return { pid: Number(entry), command };
      }
    }
  }
  return undefined;
}

/** The processes holding any of `ports` (empty when all are free). */
export async function busyPorts(ports: number[]): Promise<PortHolder[]> {
  const busy: PortHolder[] = [];
  for (const port of ports) {
    if (await portIsFree(port)) continue;
    busy.push({ port, ...ownerOf(listeningInodes(port)) });
  }
  return busy;
}

export function describeHolders(busy: PortHolder[]): string {
  return busy
    .map((b) =>
      b.pid
        ? `  port ${b.port}: pid ${b.pid} (${shorten(b.command)})`
        : `  port ${b.port}: held by a process this user cannot see`,
    )
    .join("\n");
}

/** The informative end of a long command line (interpreter flags come first). */
function shorten(command: string | undefined): string {
  if (!command) return "unknown command";
  return command.length <= 120 ? command : `…${command.slice(-119)}`;
}
