// Preloaded (NODE_OPTIONS=--import) into every Node service the local stack starts: when the orchestrator dies
// without stopping it (SIGKILL, crash), the service is re-parented and stops itself instead of holding its port.
const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(timer);
  process.kill(process.pid, "SIGTERM");
  // A service that ignores SIGTERM still goes.
  setTimeout(() => process.exit(1), 10_000).unref();
}, 500);
timer.unref();
