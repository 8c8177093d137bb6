import { randomBytes } from "node:crypto";

/** A random identifier behind a readable prefix, e.g. org_3f..., mem_9a..., wh_c1... */
export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** A domain verification token. */
export const newDomainToken = () => randomBytes(16).toString("hex");
