// The one way the console feeds a framed preview page (the widget's DP1 pages, `/preview/email`):
// the page posts `{type: "refloop.preview.ready"}` to its parent once it listens, and from then on
// the latest message is posted to it on every change. Both sides accept only our own origin.
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

/** A message a preview page understands, such as `{type: "refloop.preview.email", html}`. */
export interface PreviewMessage {
  type: string;
  [field: string]: unknown;
}

/**
 * A ref for the preview's `<iframe>`: `message` is posted when the framed page says it is ready
 * (again after the frame is replaced and loads anew), then whenever its content changes, `delayMs`
 * after the last change when given (a design typed letter by letter is posted once).
 */
export function usePreviewFrame(message: PreviewMessage, delayMs = 0): RefObject<HTMLIFrameElement | null> {
  const frame = useRef<HTMLIFrameElement>(null);
  const ready = useRef(false);
  const latest = useRef(message);
  latest.current = message;
  const post = () => frame.current?.contentWindow?.postMessage(latest.current, location.origin);
  // A layout effect: the listener is in place in the same task that puts the frame in the page, so a frame
  // that loads fast (a cached preview page) cannot say "ready" before anyone listens (a plain effect runs later).
  useLayoutEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== location.origin || e.source !== frame.current?.contentWindow || (e.data as { type?: string })?.type !== 'refloop.preview.ready') return;
      ready.current = true;
      post();
    };
    addEventListener('message', onMessage);
    return () => removeEventListener('message', onMessage);
  }, []);
  useEffect(() => {
    if (!ready.current) return;
    if (delayMs <= 0) return void post();
    const timer = setTimeout(post, delayMs);
    return () => clearTimeout(timer);
  }, [JSON.stringify(message)]);
  return frame;
}
