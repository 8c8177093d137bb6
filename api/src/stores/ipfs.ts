// Content addressing: CIDv1, raw codec, sha2-256 over the exact bytes (what `ipfs add --cid-version 1
// --raw-leaves` yields for a single-block file), stored in Postgres and pinned to a node when configured.
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { sha256 } from "multiformats/hashes/sha2";
import type pg from "pg";

export async function cidOf(bytes: Uint8Array): Promise<string> {
  const digest = await sha256.digest(bytes);
  return CID.createV1(raw.code, digest).toString();
}

export class IpfsStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly ipfsApiUrl?: string,
  ) {}

  /**
   * Stores JSON with stable key order; returns the CID and the ipfs:// URI. Inside a caller's transaction (`db`)
   * nothing is pinned (no network I/O while a connection is held): call pinStored(cid) after the commit.
   */
  async putJson(value: unknown, db?: pg.PoolClient): Promise<{ cid: string; uri: string }> {
    const bytes = new TextEncoder().encode(JSON.stringify(value));
    const cid = await cidOf(bytes);
    await (db ?? this.pool).query(
      "insert into api.ipfs_object (cid, content, content_type) values ($1, $2, 'application/json') on conflict (cid) do nothing",
      [cid, Buffer.from(bytes)],
    );
    if (this.ipfsApiUrl && !db) await this.pin(bytes, cid);
    return { cid, uri: `ipfs://${cid}` };
  }

  /** Pins an object stored inside a transaction (no-op without IPFS_API_URL). */
  async pinStored(cid: string): Promise<void> {
    if (!this.ipfsApiUrl) return;
    const stored = await this.get(cid);
    if (stored) await this.pin(stored.content, cid);
  }

  /** Whether `cid` is stored here. */
  async has(cid: string): Promise<boolean> {
    const r = await this.pool.query("select 1 from api.ipfs_object where cid = $1", [cid]);
    return (r.rowCount ?? 0) > 0;
  }

  async get(cid: string): Promise<{ content: Buffer; contentType: string } | undefined> {
    const r = await this.pool.query<{ content: Buffer; content_type: string }>(
      "select content, content_type from api.ipfs_object where cid = $1",
      [cid],
    );
    const row = r.rows[0];
    return row ? { content: row.content, contentType: row.content_type } : undefined;
  }

  /** Adds the same bytes to a Kubo node (HTTP RPC /api/v0/add) and checks it derived the same CID. */
  private async pin(bytes: Uint8Array, cid: string): Promise<void> {
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(bytes)]));
    const url = `${this.ipfsApiUrl}/api/v0/add?cid-version=1&raw-leaves=true&pin=true`;
    const res = await fetch(url, { method: "POST", body: form });
    if (!res.ok) throw new Error(`IPFS add failed: ${res.status}`);
    const out = (await res.json()) as { Hash?: string };
    if (out.Hash !== cid) throw new Error(`IPFS node returned CID ${out.Hash}, expected ${cid}`);
  }
}
