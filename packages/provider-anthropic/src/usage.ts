import { type AssistantStreamWriter, calculateCost, type Model, type UsageUpdate } from "@arbor/ai-providers";

/** The usage counters of `message_start` (`Usage`) and `message_delta` (`MessageDeltaUsage`). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number; ephemeral_5m_input_tokens?: number } | null;
}

/**
 * Tracks the usage of one response. Anthropic reports it in `message_start` and again, cumulatively, in
 * `message_delta`; counters a later event leaves out (or sets to `null`) keep their value.
 *
 * `input` is `input_tokens` (which excludes cached tokens), `cacheRead` is `cache_read_input_tokens`,
 * `cacheWrite` is `cache_creation_input_tokens`. Cost comes from the model's prices through the writer
 * (`calculateCost`); 1-hour cache writes are priced at twice the input price instead of the 5-minute
 * `cacheWrite` price, using the `cache_creation` breakdown when the server sends one, else assuming every
 * write is a 1-hour write when the request asked for `cacheRetention: "long"`.
 *
 * The prices are the requested model's until {@link UsageTracker.priceAs} names other ones (a response
 * served by a fallback model is priced as that model).
 */
export class UsageTracker {
  private longWriteTokens: number | undefined;
  private price: Model["cost"];

  constructor(
    private readonly writer: AssistantStreamWriter,
    model: Model,
    private readonly longRetention: boolean,
  ) {
    this.price = model.cost;
  }

  /** Prices the usage, now and from now on, with these prices instead of the requested model's. */
  priceAs(price: Model["cost"]): void {
    this.price = price;
    this.reprice();
  }

  /** Applies one event's usage. */
  update(usage: WireUsage | null | undefined): void {
    if (usage === null || usage === undefined) return;
    const update: UsageUpdate = {};
    if (typeof usage.input_tokens === "number") update.input = usage.input_tokens;
    if (typeof usage.output_tokens === "number") update.output = usage.output_tokens;
    if (typeof usage.cache_read_input_tokens === "number") update.cacheRead = usage.cache_read_input_tokens;
    if (typeof usage.cache_creation_input_tokens === "number") {
      update.cacheWrite = usage.cache_creation_input_tokens;
    }
    const longTokens = usage.cache_creation?.ephemeral_1h_input_tokens;
    if (typeof longTokens === "number") this.longWriteTokens = longTokens;
    this.writer.usage(update);
    this.reprice();
  }

  /** Prices the usage with {@link price} (the writer priced it as the requested model), then 1-hour writes. */
  private reprice(): void {
    calculateCost({ cost: this.price }, this.writer.message.usage);
    this.priceLongWrites();
  }

  private priceLongWrites(): void {
    const usage = this.writer.message.usage;
    const longTokens = Math.min(
      this.longWriteTokens ?? (this.longRetention ? usage.cacheWrite : 0),
      usage.cacheWrite,
    );
    if (longTokens <= 0) return;
    const price = this.price;
    const shortTokens = usage.cacheWrite - longTokens;
    usage.cost.cacheWrite = (shortTokens * price.cacheWrite + longTokens * 2 * price.input) / 1_000_000;
    usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  }
}
