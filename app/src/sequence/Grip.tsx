// A point on the timeline that a person moves: a trim handle, or a sound clip's place. It is
// dragged with the pointer, or moved a frame at a time with the arrow keys (a second with
// Shift), and to its limits with Home and End. A screen reader hears it as a slider, its value
// in seconds. While dragged it follows the pointer; the change is one edit, made on release.
import { useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";

type Props = {
  label: string;
  className: string;
  /** Where it is, and how far it may go, in frames. */
  frame: number;
  min: number;
  max: number;
  fps: number;
  /** How wide a frame is on the timeline now, in pixels. */
  frameWidth: () => number;
  onMove: (frame: number) => void;
  children?: ReactNode;
};

const STEPS: Partial<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1 };

export function Grip({
  label,
  className,
  frame,
  min,
  max,
  fps,
  frameWidth,
  onMove,
  children,
}: Props) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  // Shown while dragged: how far it has gone, in frames, and a frame's width.
  const [dragged, setDragged] = useState<{ shift: number; width: number } | null>(null);
  const clamp = (to: number) => Math.min(Math.max(to, min), max);
  const draggedTo = (event: PointerEvent) =>
    drag.current
      ? clamp(frame + Math.round((event.clientX - drag.current.x) / drag.current.width))
      : frame;

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    event.currentTarget.setPointerCapture(event.pointerId);
    event.currentTarget.focus();
    drag.current = { x: event.clientX, width: Math.max(frameWidth(), 1e-6) };
  };
  const onPointerMove = (event: PointerEvent) => {
    if (drag.current) setDragged({ shift: draggedTo(event) - frame, width: drag.current.width });
  };
  const onPointerUp = (event: PointerEvent) => {
    if (!drag.current) return;
    const to = draggedTo(event);
    drag.current = null;
    setDragged(null);
    if (to !== frame) onMove(to);
  };
  const onPointerCancel = () => {
    drag.current = null;
    setDragged(null);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.altKey || event.ctrlKey || event.metaKey ? undefined : STEPS[event.key];
    let to: number;
    if (step !== undefined) to = frame + step * (event.shiftKey ? fps : 1);
    else if (event.key === "Home") to = min;
    else if (event.key === "End") to = max;
    else return;
    event.preventDefault();
    event.stopPropagation();
    if (clamp(to) !== frame) onMove(clamp(to));
  };

  const at = frame + (dragged?.shift ?? 0);
  return (
    <div
      role="slider"
      tabIndex={0}
      aria-label={label}
      aria-orientation="horizontal"
      aria-valuemin={min / fps}
      aria-valuemax={max / fps}
      aria-valuenow={at / fps}
      aria-valuetext={`${(at / fps).toFixed(2)} s`}
      className={className}
      style={dragged ? { transform: `translateX(${dragged.shift * dragged.width}px)` } : undefined}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerCancel}
      onKeyDown={onKeyDown}
    >
      {children}
    </div>
  );
}
