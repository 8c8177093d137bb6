// A chart that cannot draw leaves its page standing. uPlot formats numbers with the browser's language when its
// module loads and throws on a tag Intl refuses (e.g. "en-US@posix", which some Linux Chromium builds report);
// without this boundary that took the whole agent page down to "Something went wrong".
import { Component, type ReactNode } from "react";

export class ChartBoundary extends Component<{ children: ReactNode; fallback: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
