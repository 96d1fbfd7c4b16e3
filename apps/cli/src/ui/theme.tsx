// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The colours of the interactive UI, in one place: every component asks the theme for a colour instead of
 * naming one, so `NO_COLOR` (https://no-color.org) turns them all off at once. Without colour the UI keeps
 * its text marks (`›`, `✓`, `✗`, `◆`, `│`) and bold/italic, so nothing is told by colour alone.
 */
import { createContext, type ReactNode, useContext } from "react";

/** The roles a colour plays in the UI. */
export type ThemeRole =
  | "accent"
  | "user"
  | "muted"
  | "success"
  | "warning"
  | "error"
  | "code"
  | "heading"
  | "link"
  | "meterLow"
  | "meterHigh";

/** Colours by role, or none at all. */
export interface Theme {
  /** False when colours are off (`NO_COLOR`). */
  readonly color: boolean;
  /** The ink colour name for a role, or `undefined` without colours. */
  colorOf(role: ThemeRole): string | undefined;
  /** Whether secondary text is dimmed (off without colours: dim is an SGR colour attribute). */
  readonly dim: boolean;
}

const COLORS: Readonly<Record<ThemeRole, string>> = {
  accent: "cyan",
  user: "blue",
  muted: "gray",
  success: "green",
  warning: "yellow",
  error: "red",
  code: "magenta",
  heading: "cyan",
  link: "blue",
  meterLow: "green",
  meterHigh: "yellow",
};

/**
 * A theme with colours, or none (`color: false`).
 *
 * Contract: pure; the theme without colours returns `undefined` for every role and turns dimming off.
 */
export function createTheme(color: boolean): Theme {
  return {
    color,
    dim: color,
    colorOf: (role) => (color ? COLORS[role] : undefined),
  };
}

/**
 * Whether colours are wanted: `NO_COLOR` set to anything but the empty string turns them off.
 *
 * Contract: pure over the given environment.
 */
export function colorWanted(environment: NodeJS.ProcessEnv = process.env): boolean {
  const value = environment.NO_COLOR;
  return value === undefined || value === "";
}

const ThemeContext = createContext<Theme>(createTheme(true));

/** Provides a theme to the components below. */
export function ThemeProvider(props: { theme: Theme; children: ReactNode }): ReactNode {
  return <ThemeContext.Provider value={props.theme}>{props.children}</ThemeContext.Provider>;
}

/** The theme of the enclosing {@link ThemeProvider} (colours on by default). */
export function useTheme(): Theme {
  return useContext(ThemeContext);
}
