import { type Model, parseContextLimit, parseRequestedTokens } from "@arbor/ai-providers";
import {
  budgetSettings,
  type CompactionSettings,
  type ConfiguredBudget,
  type ContextBudget,
  contextBudget,
} from "@arbor/compaction";
import type { Session } from "@arbor/session-store";

/** The `customType` of the entry that records a window learned from an overflow error. */
export const CONTEXT_WINDOW_ENTRY = "arbor.context_window";

/** The `data` of a {@link CONTEXT_WINDOW_ENTRY} entry. */
export interface ContextWindowRecord {
  provider: string;
  modelId: string;
  /** The window the provider's overflow error stated, in tokens (or, with `estimated`, a bound of it). */
  contextWindow: number;
  /**
   * True when the error stated no limit: the window is then taken as 90% of the estimated size of the
   * refused request (the server's window is smaller than that request), so the retry is smaller still.
   */
  estimated?: true;
  /**
   * The limit the error stated, when `contextWindow` differs from it: the server counts more tokens than the
   * local estimate for the same request, and `contextWindow` is that limit in the estimate's units.
   */
  stated?: number;
}

/** The share of a refused request's estimated size taken as the window when the error states none. */
export const REFUSED_REQUEST_SHARE = 0.9;

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
    private readonly resolved: CompactionSettings,
    private readonly configured: ConfiguredBudget,
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
   * After an overflow error: the limit it states (`parseContextLimit`), or else 90% of `refusedTokens` (the
   * estimated size of the refused request, when known), becomes the session's window for this model when
   * it is below the window in effect. A stated limit is counted in the server's tokens: when the error also
   * states the refused request's size (`parseRequestedTokens`) and that is more than the local estimate of
   * it, the window is scaled to the estimate's units (`stated × estimate / requested`), so that a request the
   * estimate says fits does fit. Returns what to record, or undefined.
   */
  learn(model: Model, errorMessage: string, refusedTokens?: number): ContextWindowRecord | undefined {
    const stated = parseContextLimit(errorMessage);
    const known = refusedTokens !== undefined && refusedTokens > 0 ? refusedTokens : undefined;
    let limit: number | undefined;
    if (stated !== undefined) {
      const requested = parseRequestedTokens(errorMessage);
      limit =
        requested !== undefined && known !== undefined && requested > known
          ? Math.floor((stated * known) / requested)
          : stated;
    } else if (known !== undefined) {
      limit = Math.floor(known * REFUSED_REQUEST_SHARE);
    }
    if (limit === undefined || limit <= 0 || limit >= this.of(model)) return undefined;
    this.learnedWindows().set(windowKey(model), limit);
    const record: ContextWindowRecord = { provider: model.provider, modelId: model.id, contextWindow: limit };
    if (stated === undefined) record.estimated = true;
    else if (limit !== stated) record.stated = stated;
    return record;
  }

  /**
   * The budget of the next call to `model` (`contextBudget` of `@arbor/compaction`) with a fixed part of
   * `fixedTokens`: values the user did not set derived from the window in effect; a set value that cannot
   * work is clamped and becomes a warning, once per session.
   */
  budget(model: Model, fixedTokens = 0): ContextBudget {
    const budget = contextBudget({
      modelWindow: model.contextWindow,
      learnedWindow: this.learnedWindows().get(windowKey(model)),
      settings: this.resolved,
      configured: this.configured,
      fixedTokens,
    });
    for (const adjustment of budget.adjustments) {
      if (this.warned.has(adjustment.message)) continue;
      this.warned.add(adjustment.message);
      this.warningList.push(adjustment.message);
    }
    return budget;
  }

  /** The compaction settings in effect for the model's window: the budget's reserve and kept tail. */
  settings(model: Model): CompactionSettings {
    return budgetSettings(this.resolved, this.budget(model));
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

function windowKey(model: Model): string {
  return `${model.provider}/${model.id}`;
}
