// A real DNS server on loopback for domain-verification tests (dns2, UDP). scripts/test-e2e.ts starts it before the
// API (which gets DNS_SERVER=127.0.0.1:<port>); tests publish TXT records by writing the shared records file, which
// the server reads on every query, so no process has to share memory with another.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import dns2 from "dns2";

type Records = Record<string, string[]>;

const norm = (name: string) => name.toLowerCase().replace(/\.$/, "");

function readRecords(file: string): Records {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Records;
  } catch {
    return {};
  }
}

export interface TestDns {
  /** host:port for DNS_SERVER */
  server: string;
  recordsFile: string;
  close(): Promise<void>;
}

/** Answers TXT queries from `recordsFile` (NXDOMAIN for unknown names, no answer for other record types). */
export async function startTestDns(recordsFile: string): Promise<TestDns> {
  writeFileSync(recordsFile, "{}");
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (question) {
        const records = readRecords(recordsFile);
        const values = records[norm(question.name)];
        if (!values) {
          response.header.rcode = 3; // NXDOMAIN
        } else if (question.type === Packet.TYPE.TXT) {
          for (const value of values) {
            // dns2's Resource type also demands toBuffer(); plain records are what its encoder reads.
            response.answers.push({
              name: question.name,
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 1,
              data: value,
            } as unknown as (typeof response.answers)[number]);
          }
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } } as never);
  const port = (addresses as { udp: { port: number } }).udp.port;
  return {
    server: `127.0.0.1:${port}`,
    recordsFile,
    close: async () => {
      server.close();
    },
  };
}

/** The records file of the running e2e stack (next to the stack description). */
export function stackRecordsFile(): string {
  const stackFile = process.env.AGENTHUB_STACK;
  if (!stackFile) throw new Error("AGENTHUB_STACK is not set");
  return join(dirname(stackFile), "dns-records.json");
}

/** Publishes (or with null removes) the TXT values of `name` on the test DNS server. */
export function setTxtRecord(name: string, values: string[] | null, file = stackRecordsFile()): void {
  const records = readRecords(file);
  if (values === null) delete records[norm(name)];
  else records[norm(name)] = values;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(records));
  renameSync(tmp, file);
}
