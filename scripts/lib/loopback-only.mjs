// Preloaded (NODE_OPTIONS=--import) into services that insist on listening on every interface (the Alto bundler
// hard-codes 0.0.0.0): any listen on an unspecified address is moved to 127.0.0.1, so nothing the local stack
// starts is reachable from outside this machine.
import net from "node:net";

const unspecified = new Set([undefined, null, "", "0.0.0.0", "::", "::0"]);
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (first && typeof first === "object" && !Array.isArray(first) && first.path === undefined) {
    if (unspecified.has(first.host)) args[0] = { ...first, host: "127.0.0.1" };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    if (typeof args[1] !== "string" || unspecified.has(args[1])) {
      const rest = typeof args[1] === "string" ? args.slice(2) : args.slice(1);
      args = [first, "127.0.0.1", ...rest];
    }
  }
  return listen.apply(this, args);
};
