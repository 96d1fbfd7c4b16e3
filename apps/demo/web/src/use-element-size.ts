/**
 * The size of an element, kept up to date by a `ResizeObserver` (the graph's area, to know the pane's size
 * before React Flow measures it, so that the first view is centred in the pane it ends up in).
 */
import { type RefObject, useEffect, useState } from "react";

/** A size in CSS pixels. */
export interface ElementSize {
  width: number;
  height: number;
}

/**
 * The content-box size of `ref`'s element; `{ 0, 0 }` until it is laid out.
 *
 * Contract: re-renders the caller when the size changes; stops observing on unmount.
 */
export function useElementSize(ref: RefObject<HTMLElement | null>): ElementSize {
  const [size, setSize] = useState<ElementSize>({ width: 0, height: 0 });
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const observer = new ResizeObserver((entries) => {
      const box = entries[0]?.contentRect;
      if (box === undefined) return;
      setSize((previous) =>
        previous.width === box.width && previous.height === box.height
          ? previous
          : { width: box.width, height: box.height },
      );
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}
