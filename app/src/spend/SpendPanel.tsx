// The project's spend: this month against its cap as a bar, the last 30 days as a chart, and
// a table by model.
import { useEffect, useRef } from "react";
import { run, useStudio, useView } from "../core/useStudio";
import "./spend.css";

/** The chart's size in its own units (it scales to the panel's width). */
const WIDTH = 300;
const HEIGHT = 80;

export default function SpendPanel() {
  const studio = useStudio();
  const { loading, loaded, error, totalLabel, committedLabel, capLabel, used, days, models } =
    useView("spend");
  const slot = days.length > 0 ? WIDTH / days.length : WIDTH;
  const heading = useRef<HTMLHeadingElement>(null);
  // Opened, the panel takes the focus (a screen reader reads it); closed, the focus goes back
  // to the Spend button that opened it.
  useEffect(() => heading.current?.focus(), []);
  const close = () => {
    studio.closeSpend();
    document.querySelector<HTMLElement>(".spend-toggle")?.focus();
  };
  return (
    <section className="panel spend-panel" aria-labelledby="spend-heading">
      <h2 id="spend-heading" ref={heading} tabIndex={-1}>
        Spend
      </h2>
      <div className="spend-actions">
        <button type="button" disabled={loading} onClick={() => run(studio.openSpend())}>
          {loading ? "Loading..." : "Refresh"}
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {error !== null && <p className="spend-error">{error}</p>}
      {loaded && (
        <>
          <p className="spend-month" data-testid="spend-month">
            This month: {committedLabel}
            {capLabel === null ? " (no budget)" : ` of ${capLabel}`}
          </p>
          {used !== null && (
            <div
              className="spend-bar"
              role="meter"
              aria-label="Budget used"
              aria-valuemin={0}
              aria-valuemax={1}
              aria-valuenow={used}
            >
              <div className={used >= 1 ? "full" : ""} style={{ width: `${used * 100}%` }} />
            </div>
          )}
          <p className="spend-total" data-testid="spend-total">
            Last 30 days: {totalLabel}
          </p>
          <svg
            className="spend-chart"
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            role="img"
            aria-label="Spend by day, last 30 days"
          >
            {days.map((day, i) => (
              <rect
                key={day.date}
                x={i * slot + 1}
                y={HEIGHT - day.height * HEIGHT}
                width={Math.max(slot - 2, 1)}
                height={day.height * HEIGHT}
              >
                <title>{`${day.date}: ${day.label}`}</title>
              </rect>
            ))}
          </svg>
          {models.length === 0 ? (
            <p className="empty">Nothing spent in the last 30 days.</p>
          ) : (
            <table className="spend-models">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Jobs</th>
                  <th scope="col">Seconds</th>
                  <th scope="col">Spent</th>
                </tr>
              </thead>
              <tbody>
                {models.map((row) => (
                  <tr key={row.model}>
                    <td>{row.model}</td>
                    <td>{row.jobs}</td>
                    <td>{row.seconds}</td>
                    <td>{row.label}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
