// A white-label site's brand: the organization's colours, font, logo and CSS, re-checked before use, the shared
// stylesheet, the pages' Content-Security-Policy, and the one HTML escape every page uses.
import { createHash } from "node:crypto";
import { CLAIM_SCRIPT } from "../claim-page.ts";

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const FONT_FAMILY = /^[\w\s,'"-]{1,100}$/;

export const escapeHtml = (value: unknown) =>
  String(value).replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

export interface Brand {
  name: string;
  logo: URL | null;
  primaryColor: string;
  accentColor: string;
  secondaryColor: string;
  fontFamily: string;
  customCSS: string;
}

const DEFAULTS = { primaryColor: "#3b5bdb", accentColor: "#f59f00", secondaryColor: "#f1f3f5" };

/** The organization's branding, re-checked (stored values were validated on write; anything odd falls back). */
export function brandOf(org: { name: string; branding: Record<string, unknown> }): Brand {
  const b = org.branding ?? {};
  const color = (key: keyof typeof DEFAULTS) => {
    const v = b[key];
    return typeof v === "string" && HEX_COLOR.test(v) ? v : DEFAULTS[key];
  };
  let logo: URL | null = null;
  if (typeof b.logo === "string") {
    try {
      const u = new URL(b.logo);
      if (u.protocol === "https:" || u.protocol === "http:") logo = u;
    } catch {
      logo = null;
    }
  }
  const font = typeof b.fontFamily === "string" && FONT_FAMILY.test(b.fontFamily) ? b.fontFamily : "system-ui";
  const css = typeof b.customCSS === "string" && !b.customCSS.includes("<") ? b.customCSS : "";
  return {
    name: org.name,
    logo,
    primaryColor: color("primaryColor"),
    accentColor: color("accentColor"),
    secondaryColor: color("secondaryColor"),
    fontFamily: font,
    customCSS: css,
  };
}

const BASE_CSS = `
body{font-family:var(--font),system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:0 1rem 3rem;color:#1b1b1f}
header.brand{display:flex;align-items:center;gap:.75rem;padding:1rem 0;border-bottom:4px solid var(--primary)}
header.brand img{height:40px;max-width:160px;object-fit:contain}
header.brand .name{font-size:1.3rem;font-weight:700;color:var(--primary)}
header.brand nav{margin-left:auto;display:flex;gap:1rem}
a{color:var(--primary)} a:hover{color:var(--accent)}
.card{border:1px solid #ddd;border-radius:12px;padding:1.25rem;margin:1rem 0;background:var(--secondary)}
.stats{display:flex;gap:1rem;flex-wrap:wrap} .stats .card{flex:1;min-width:10rem;margin:0}
.stats b{display:block;font-size:1.8rem;color:var(--primary)}
table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e9ecef}
th{background:var(--secondary)} .tag{display:inline-block;padding:0 .4rem;margin:0 .2rem .2rem 0;border-radius:6px;
background:var(--secondary);border:1px solid #dee2e6;font-size:.85rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:8px;border:0;background:var(--primary);color:#fff;cursor:pointer}
button:disabled{opacity:.5} code{word-break:break-all}
.warn{background:#fff4e6;border-color:var(--accent)} .err{color:#c92a2a}
.pager{display:flex;gap:1rem;margin:1rem 0}
`;

/** /brand.css: the organization's colours and font as custom properties, the shared layout, then its own CSS. */
export function brandCss(brand: Brand): string {
  return `:root{--primary:${brand.primaryColor};--accent:${brand.accentColor};--secondary:${brand.secondaryColor};--font:${brand.fontFamily}}
${BASE_CSS}
/* organization CSS */
${brand.customCSS}
`;
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** No script (or only the claim script, by hash), styles from this origin, images from the logo's origin only. */
export function pageCsp(brand: Brand, opts: { claim?: boolean } = {}): string {
  return [
    "default-src 'none'",
    opts.claim ? `script-src ${sha256(CLAIM_SCRIPT)}` : null,
    "style-src 'self'",
    brand.logo ? `img-src ${brand.logo.origin}` : null,
    opts.claim ? "connect-src 'self'" : null,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]
    .filter(Boolean)
    .join("; ");
}
