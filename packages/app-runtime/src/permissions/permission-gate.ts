/**
 * The gate every tool call of a runtime passes (a `tool_call` hook on the harness): it judges the call
 * ({@link judgeToolCall}), asks the front end when the policy says so, records the decision in the session
 * (a `custom` entry {@link PERMISSION_CUSTOM_TYPE}) and tells its listeners. Asking is one concept for every
 * front end: a {@link PermissionRequest} goes to the attached askers (the terminal's dialog, the protocol's
 * `permission_request` event), and {@link PermissionGate.reply} answers it. With no asker attached (print
 * and json modes), a call that needs a question is refused with a tool error that says which rule or flag
 * would allow it. An abort while asking is a "no". The gate fails closed: if judging throws, the call is
 * refused.
 */
import { randomUUID } from "node:crypto";
import type { BeforeToolCallContext, BeforeToolCallResult } from "@arbor/agent-core";
import type { HarnessSession, HookContext } from "@arbor/harness";
import { PERMISSION_CUSTOM_TYPE, type PermissionRecord, permissionRecordOf } from "@arbor/session-view";
import type { PermissionMode } from "../tool-names.js";
import { type JudgedCall, toolCategory } from "./permission-match.js";
import {
  judgeToolCall,
  modeRefusal,
  type PermissionPolicy,
  suggestedRule,
  summarizeToolCall,
} from "./permission-policy.js";
import { type PermissionRule, parsePermissionRule } from "./permission-rule.js";

/** A user's answer: allow this call, allow such calls for the rest of the session, or refuse it. */
export type PermissionAnswer = "once" | "session" | "deny";

/** The answers, in the order a dialog offers them. */
export const PERMISSION_ANSWERS: readonly PermissionAnswer[] = ["once", "session", "deny"];

/** A question to the user about one tool call. */
export interface PermissionRequest {
  readonly requestId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The command, path or arguments, in a few words. */
  readonly summary: string;
  /** The rule "for this session" adds (e.g. `bash(npm test)`, `edit(**)`). */
  readonly suggestedRule: string;
  readonly mode: PermissionMode;
}

/** A decision as the gate's listeners receive it: the record, and the request it answers (if one was asked). */
export type PermissionDecisionEvent = PermissionRecord & { readonly requestId?: string };

/** What the gate needs from the runtime. */
export interface PermissionGateOptions {
  readonly cwd: string;
  /** The current session (decisions are recorded in it; its "for this session" answers are rebuilt from it). */
  readonly session: () => HarnessSession;
}

interface Pending {
  readonly request: PermissionRequest;
  readonly resolve: (answer: PermissionAnswer) => void;
}

const DENIED_BY_USER = (toolName: string) =>
  `Denied by the user: ${toolName} was not run and nothing was changed. Ask the user what to do instead.`;

/** See the module comment. */
export class PermissionGate {
  private readonly askers = new Set<(request: PermissionRequest) => void>();
  private readonly decisionListeners = new Set<(event: PermissionDecisionEvent) => void>();
  private readonly pendingRequests = new Map<string, Pending>();
  /** The rules "for this session" answers added, by session id. */
  private readonly grants = new Map<string, PermissionRule[]>();

  constructor(
    readonly policy: PermissionPolicy,
    private readonly options: PermissionGateOptions,
  ) {}

  /** The run's permission mode. */
  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** The questions waiting for an answer, oldest first. */
  get pending(): readonly PermissionRequest[] {
    return [...this.pendingRequests.values()].map((item) => item.request);
  }

  /**
   * Attaches a front end that can ask the user; while one is attached, calls that need a question wait for
   * {@link reply} instead of being refused. Returns the function that detaches it.
   *
   * Contract: the asker is called once per request and must not throw; it answers later through
   * {@link reply}. Questions already waiting are given to it at once.
   */
  attachAsker(asker: (request: PermissionRequest) => void): () => void {
    this.askers.add(asker);
    for (const request of this.pending) asker(request);
    return () => {
      this.askers.delete(asker);
    };
  }

  /**
   * Listens to every decision the gate records (and to the answer of each request).
   *
   * Contract: the listener must not throw. Returns the function that removes it.
   */
  onDecision(listener: (event: PermissionDecisionEvent) => void): () => void {
    this.decisionListeners.add(listener);
    return () => {
      this.decisionListeners.delete(listener);
    };
  }

  /**
   * Answers a waiting request.
   *
   * Contract: `false` when no request of that id waits (answered already, or unknown); never throws.
   */
  reply(requestId: string, answer: PermissionAnswer): boolean {
    const pending = this.pendingRequests.get(requestId);
    if (pending === undefined) return false;
    this.pendingRequests.delete(requestId);
    pending.resolve(answer);
    return true;
  }

  /**
   * The `tool_call` hook: `undefined` lets the call run, `{ block: true, reason }` refuses it.
   *
   * Contract: never throws (a failure refuses the call); resolves with a refusal when aborted while asking.
   */
  async check(event: BeforeToolCallContext, context: HookContext): Promise<BeforeToolCallResult | undefined> {
    const call: JudgedCall = { toolName: event.toolCall.name, args: event.args };
    try {
      return await this.decide(call, event.toolCall.id, context.signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        block: true,
        reason: `The permission check failed (${message}): ${call.toolName} was not run.`,
      };
    }
  }

  private async decide(
    call: JudgedCall,
    toolCallId: string,
    signal: AbortSignal,
  ): Promise<BeforeToolCallResult | undefined> {
    const { cwd } = this.options;
    const session = this.options.session();
    const verdict = judgeToolCall(this.policy, call, cwd, this.grantsOf(session));
    const summary = summarizeToolCall(call, cwd);
    const base = { toolCallId, toolName: call.toolName, summary, mode: this.mode };
    const category = toolCategory(call.toolName);
    if (verdict.kind === "allow") {
      // What `auto` runs without a rule is not recorded (sessions stay as they were before permissions).
      const gated = category !== "read" && category !== "other";
      if (gated && !(verdict.by === "mode" && this.mode === "auto")) {
        await this.record(session, {
          ...base,
          decision: "allowed",
          by: verdict.by,
          ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
        });
      }
      return undefined;
    }
    if (verdict.kind === "deny") {
      await this.record(session, {
        ...base,
        decision: "denied",
        by: verdict.by,
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
        reason: verdict.reason,
      });
      return { block: true, reason: verdict.reason };
    }
    if (this.askers.size === 0) {
      const reason = modeRefusal(this.mode, call, cwd, "no_one_to_ask");
      await this.record(session, { ...base, decision: "denied", by: "mode", reason });
      return { block: true, reason };
    }
    const request: PermissionRequest = {
      requestId: randomUUID(),
      ...base,
      suggestedRule: suggestedRule(call, cwd),
    };
    const answer = await this.ask(request, signal);
    const requestId = { requestId: request.requestId };
    if (answer === "deny") {
      const reason = signal.aborted
        ? `Not run: the run was stopped while the user was asked about ${call.toolName}.`
        : DENIED_BY_USER(call.toolName);
      await this.record(session, { ...base, decision: "denied", by: "user", reason }, requestId);
      return { block: true, reason };
    }
    if (answer === "session") {
      const parsed = parsePermissionRule(request.suggestedRule);
      if (parsed.ok) this.grantsOf(session).push(parsed.rule);
    }
    await this.record(
      session,
      {
        ...base,
        decision: "allowed",
        by: "user",
        scope: answer,
        ...(answer === "session" ? { rule: request.suggestedRule } : {}),
      },
      requestId,
    );
    return undefined;
  }

  private ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    if (signal.aborted) return Promise.resolve("deny");
    return new Promise<PermissionAnswer>((resolve) => {
      const onAbort = () => this.reply(request.requestId, "deny");
      signal.addEventListener("abort", onAbort, { once: true });
      this.pendingRequests.set(request.requestId, {
        request,
        resolve: (answer) => {
          signal.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      });
      for (const asker of [...this.askers]) {
        try {
          asker(request);
        } catch {
          // An asker that fails does not answer; another one (or an abort) will.
        }
      }
    });
  }

  /** The rules of the session's "for this session" answers, rebuilt from its entries the first time. */
  private grantsOf(session: HarnessSession): PermissionRule[] {
    let rules = this.grants.get(session.id);
    if (rules === undefined) {
      rules = [];
      for (const entry of session.session.getBranch()) {
        if (entry.type !== "custom") continue;
        const record = permissionRecordOf(entry.customType, entry.data);
        if (record?.by !== "user" || record.scope !== "session" || record.rule === undefined) continue;
        const parsed = parsePermissionRule(record.rule);
        if (parsed.ok) rules.push(parsed.rule);
      }
      this.grants.set(session.id, rules);
    }
    return rules;
  }

  private async record(
    session: HarnessSession,
    record: PermissionRecord,
    request: { requestId?: string } = {},
  ): Promise<void> {
    try {
      await session.appendCustom(PERMISSION_CUSTOM_TYPE, record);
    } catch {
      // The decision stands even when it cannot be recorded (a save failure stops the run on its own).
    }
    for (const listener of [...this.decisionListeners]) {
      try {
        listener({ ...record, ...request });
      } catch {
        // Listeners must not throw; one that does is ignored.
      }
    }
  }
}
