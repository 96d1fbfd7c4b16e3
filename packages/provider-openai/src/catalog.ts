/**
 * The catalog of current OpenAI models, as plain data.
 *
 * Prices are US dollars per million tokens at the standard tier for short contexts (OpenAI bills
 * prompts above 272K tokens at a higher rate on the 1M-window models, and writes to the prompt cache
 * cost nothing). Checked on 2026-11-30 against OpenAI's published prices and model pages (the GPT-5.4,
 * 5.5 and 5.6 rows as published between April and July 2026). GPT-5.6 (Sol, Terra, Luna) is in limited
 * preview and its context window is not published: GPT-5.5's is assumed. Correct a row with
 * `settings.models` (an entry with the same id replaces it) rather than waiting for a release.
 */

/** One catalog row. `reasoningEfforts` lists the efforts the model accepts, lowest first. */
export interface OpenAIModelEntry {
  id: string;
  name: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  /** input, cached input, output (per million tokens). */
  price: [input: number, cachedInput: number, output: number];
  contextWindow: number;
  maxTokens: number;
  reasoningEfforts?: readonly string[];
}

const TEXT_IMAGE: ("text" | "image")[] = ["text", "image"];
const EFFORTS_5_2 = ["none", "low", "medium", "high", "xhigh"] as const;
const EFFORTS_5_1 = ["none", "low", "medium", "high"] as const;
const EFFORTS_5 = ["minimal", "low", "medium", "high"] as const;
const EFFORTS_O = ["low", "medium", "high"] as const;

/** OpenAI's current models (see the module comment for sources and date). */
export const OPENAI_MODELS: readonly OpenAIModelEntry[] = Object.freeze([
  {
    id: "gpt-5.6-sol",
    name: "GPT-5.6 Sol (preview)",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [5, 0.5, 30],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: [...EFFORTS_5_2, "max"],
  },
  {
    id: "gpt-5.6-terra",
    name: "GPT-5.6 Terra (preview)",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [2.5, 0.25, 15],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.6-luna",
    name: "GPT-5.6 Luna (preview)",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [1, 0.1, 6],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.5",
    name: "GPT-5.5",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [5, 0.5, 30],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.5-pro",
    name: "GPT-5.5 Pro",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [30, 30, 180],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: ["medium", "high", "xhigh"],
  },
  {
    id: "gpt-5.4",
    name: "GPT-5.4",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [2.5, 0.25, 15],
    contextWindow: 1_050_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.4-mini",
    name: "GPT-5.4 mini",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [0.75, 0.075, 4.5],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.4-nano",
    name: "GPT-5.4 nano",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [0.2, 0.02, 1.25],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.2",
    name: "GPT-5.2",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [1.75, 0.175, 14],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_2,
  },
  {
    id: "gpt-5.1",
    name: "GPT-5.1",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [1.25, 0.125, 10],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5_1,
  },
  {
    id: "gpt-5",
    name: "GPT-5",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [1.25, 0.125, 10],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5,
  },
  {
    id: "gpt-5-mini",
    name: "GPT-5 mini",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [0.25, 0.025, 2],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5,
  },
  {
    id: "gpt-5-nano",
    name: "GPT-5 nano",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [0.05, 0.005, 0.4],
    contextWindow: 400_000,
    maxTokens: 128_000,
    reasoningEfforts: EFFORTS_5,
  },
  {
    id: "o3",
    name: "o3",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [2, 0.5, 8],
    contextWindow: 200_000,
    maxTokens: 100_000,
    reasoningEfforts: EFFORTS_O,
  },
  {
    id: "o4-mini",
    name: "o4-mini",
    reasoning: true,
    input: TEXT_IMAGE,
    price: [1.1, 0.275, 4.4],
    contextWindow: 200_000,
    maxTokens: 100_000,
    reasoningEfforts: EFFORTS_O,
  },
  {
    id: "gpt-4.1",
    name: "GPT-4.1",
    reasoning: false,
    input: TEXT_IMAGE,
    price: [2, 0.5, 8],
    contextWindow: 1_047_576,
    maxTokens: 32_768,
  },
  {
    id: "gpt-4.1-mini",
    name: "GPT-4.1 mini",
    reasoning: false,
    input: TEXT_IMAGE,
    price: [0.4, 0.1, 1.6],
    contextWindow: 1_047_576,
    maxTokens: 32_768,
  },
  {
    id: "gpt-4o",
    name: "GPT-4o",
    reasoning: false,
    input: TEXT_IMAGE,
    price: [2.5, 1.25, 10],
    contextWindow: 128_000,
    maxTokens: 16_384,
  },
  {
    id: "gpt-4o-mini",
    name: "GPT-4o mini",
    reasoning: false,
    input: TEXT_IMAGE,
    price: [0.15, 0.075, 0.6],
    contextWindow: 128_000,
    maxTokens: 16_384,
  },
]);
