import { type Model, parseContextLimit } from "@arbor/ai-providers";
import {
  type CompactionSettingAdjustment,
  type CompactionSettings,
  effectiveCompactionSettings,
} from "@arbor/compaction";
import type { Session } from "@arbor/session-store";

/** The `customType` of the entry that records a window learned from an overflow error. */
export const CONTEXT_WINDOW_ENTRY = "arbor.context_window";

/** The `data` of a {@link CONTEXT_WINDOW_ENTRY} entry. */
export interface ContextWindowRecord {
  provider: string;
  modelId: string;
  /** The window the provider's overflow error stated, in tokens. */
  contextWindow: number;
}

/**
 * The window a session's context must fit, per model: the model's, or the smaller one a provider's overflow
 * error stated (recorded as a `custom` entry {@link CONTEXT_WINDOW_ENTRY}, read back on open); and the
 * compaction settings in effect for it. Internal.
 */
export class SessionWindow {
  /** Windows stated by overflow errors, per `provider/modelId`. */
  private learned: Map<string, number> | undefined;
  /** The adjustments of the configured settings already warned about (once each per session). */
  private readonly warned = new Set<string>();
  private readonly warningList: string[] = [];

  constructor(
    private readonly configured: CompactionSettings,
    private readonly session: Session,
  ) {}

  /** The warnings about settings that cannot work for a model's window (each once), as found so far. */
  get warnings(): readonly string[] {
    return this.warningList;
  }

  /** The window of `model` in this session: its own, or a smaller one learned from an overflow error. */
  of(model: Model): number {
    const learned = this.learnedWindows().get(windowKey(model));
    return learned !== undefined && learned < model.contextWindow ? learned : model.contextWindow;
  }

  /**
   * After an overflow error that states the limit (`parseContextLimit`): when it is below the window in
   * effect, it becomes the session's window for this model. Returns what to record, or undefined.
   */
  learn(model: Model, errorMessage: string): ContextWindowRecord | undefined {
    const limit = parseContextLimit(errorMessage);
    if (limit === undefined || limit >= this.of(model)) return undefined;
    this.learnedWindows().set(windowKey(model), limit);
    return { provider: model.provider, modelId: model.id, contextWindow: limit };
  }

  /**
   * The compaction settings in effect for the model's window (`effectiveCompactionSettings`): a reserve or a
   * kept tail too large for the window is clamped. A value that cannot work at all — a reserve at or above
   * the window, a kept tail at or above what the reserve leaves — also becomes a warning, once per session.
   */
  settings(model: Model): CompactionSettings {
    const window = this.of(model);
    const effective = effectiveCompactionSettings(this.configured, window);
    for (const adjustment of effective.adjustments) {
      if (!cannotWork(adjustment, window, effective.settings) || this.warned.has(adjustment.message))
        continue;
      this.warned.add(adjustment.message);
      this.warningList.push(adjustment.message);
    }
    return effective.settings;
  }

  /** The windows learned so far, per model; read from the session's path at first use. O(path) once. */
  private learnedWindows(): Map<string, number> {
    if (this.learned !== undefined) return this.learned;
    const learned = new Map<string, number>();
    for (const ref of this.session.getPath()) {
      if (ref.type !== "custom") continue;
      const entry = ref.entry();
      if (entry?.type !== "custom" || entry.customType !== CONTEXT_WINDOW_ENTRY) continue;
      const data = entry.data as Partial<ContextWindowRecord> | undefined;
      if (typeof data?.contextWindow !== "number" || !(data.contextWindow > 0)) continue;
      learned.set(`${data.provider}/${data.modelId}`, data.contextWindow);
    }
    this.learned = learned;
    return learned;
  }
}

/** A configured value that could not work at all for the window (not just one larger than the clamp). */
function cannotWork(
  adjustment: CompactionSettingAdjustment,
  contextWindow: number,
  effective: CompactionSettings,
): boolean {
  if (adjustment.setting === "reserveTokens") return adjustment.configured >= contextWindow;
  return adjustment.configured >= contextWindow - effective.reserveTokens;
}

function windowKey(model: Model): string {
  return `${model.provider}/${model.id}`;
}
