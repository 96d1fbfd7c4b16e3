import { ArborError, type Model } from "@arbor/ai-providers";
import { UnresolvedModelError } from "./errors.js";

/** Where model references (`"provider/model"`) are looked up, in this order. */
export interface ModelSources {
  /** The caller's resolver (e.g. a `ProviderRegistry`'s `resolveModel`). */
  resolve?: (reference: string) => Model | undefined;
  /** Models known by value. */
  models: readonly Model[];
}

/** `provider/id` of a model. */
export function modelReference(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

/**
 * Resolves a model given by value or as `"provider/model"`: a `Model` is returned as is; a reference goes to
 * `sources.resolve` (a throw or `undefined` falls through), then to the list of known models.
 *
 * @throws {UnresolvedModelError} naming the reference and the known models.
 */
export function resolveModelReference(reference: Model | string, sources: ModelSources): Model {
  if (typeof reference !== "string") return reference;
  let failure: unknown;
  if (sources.resolve !== undefined) {
    try {
      const found = sources.resolve(reference);
      if (found !== undefined) return found;
    } catch (error) {
      failure = error;
    }
  }
  const known = sources.models.find((model) => modelReference(model) === reference);
  if (known !== undefined) return known;
  const names = sources.models.map(modelReference);
  const reason =
    failure !== undefined && ArborError.isInstance(failure)
      ? failure.message
      : `it is not among the known models (${names.length > 0 ? names.join(", ") : "none"}); pass it in ` +
        "`models`, or give `resolveModel` / a `registry`.";
  throw new UnresolvedModelError(reference, reason, { cause: failure });
}

/** Like {@link resolveModelReference}, but `undefined` instead of a throw. */
export function tryResolveModel(reference: string, sources: ModelSources): Model | undefined {
  try {
    return resolveModelReference(reference, sources);
  } catch {
    return undefined;
  }
}
