import { SessionConflictError, SessionStoreUnavailableError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { DEFAULT_SAVE_RETRY, isRetryableSaveError, saveRetryDelay } from "../src/save-retry.js";

const unavailable = (reason: SessionStoreUnavailableError["reason"], transient: boolean) =>
  new SessionStoreUnavailableError({ store: "/tmp/s.db", reason, transient, message: `it is ${reason}` });

describe("which refused saves are tried again", () => {
  it("retries what may come back, never another writer's refusal nor a store the user must fix", () => {
    expect(isRetryableSaveError(new Error("EIO: i/o error"))).toBe(true);
    expect(isRetryableSaveError(unavailable("locked", true))).toBe(true);
    expect(isRetryableSaveError(unavailable("connection_lost", true))).toBe(true);
    expect(isRetryableSaveError(unavailable("disk_full", false))).toBe(true);
    expect(isRetryableSaveError(new SessionConflictError("s", "a", "b"))).toBe(false);
    expect(isRetryableSaveError(unavailable("read_only", false))).toBe(false);
    expect(isRetryableSaveError(unavailable("unusable", false))).toBe(false);
  });

  it("waits 0.25, 0.5, 1, 2, 4, 8 s … within the 30 s window", () => {
    const delays: number[] = [];
    let elapsed = 0;
    for (let retry = 1; ; retry++) {
      const delay = saveRetryDelay(DEFAULT_SAVE_RETRY, retry, elapsed);
      if (delay === undefined) break;
      delays.push(delay);
      elapsed += delay;
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 6250]);
  });
});
