package dev.waymark.core.tool;

/**
 * Why a tool call asks for the user's approval in every mode, {@code yolo} included, and why
 * "allow for this session" does not cover the next such call.
 */
public enum Sensitive {
  /** The call would send a secrets file ({@code .env}, {@code .env.*}) to the model. */
  SECRETS("a secrets file: its content would go to the model",
      "a secrets file goes to the model only with the user's approval, in every mode, and nobody can give it here."),
  /** The call would change Waymark's own files ({@code .waymark/}), which decide what the next run may do. */
  WAYMARK_FILES("Waymark's own settings (.waymark/): they decide what the next run may do",
      "Waymark's own settings (.waymark/) change only with the user's approval, in every mode, and nobody can give it here."),
  /** A shell command asked to run outside the sandbox, with the user's rights and the network. */
  OUTSIDE_SANDBOX("outside the sandbox: it can change any file you can and use the network",
      "a command runs outside the sandbox only with the user's approval, in every mode, and nobody can give it here.");

  private final String summary;
  private final String denial;

  Sensitive(String summary, String denial) {
    this.summary = summary;
    this.denial = denial;
  }

  /** Added to the call's summary in the approval prompt. */
  public String summary() {
    return summary;
  }

  /** Why the call was denied when nobody can approve it. */
  public String denial() {
    return denial;
  }
}
