package dev.waymark.tui.run;

import dev.waymark.core.share.ExportFile;
import dev.waymark.tui.chat.AnswerText;
import dev.waymark.tui.chat.ChatMarkdown;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.terminal.Clipboard;
import dev.waymark.tui.text.Tone;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** What leaves the chat: {@code /copy} to the clipboard, {@code /export-chat} to a file, each saying what went where. */
final class ChatOut {
  private ChatOut() {}

  /** {@code /copy [N]}: the last answer, or its {@code block}-th code block (0: the whole answer). */
  static void copy(TabState state, int block, Optional<Clipboard> clipboard) {
    if (clipboard.isEmpty()) {
      state.notice(Tone.ERROR, "✗ There is no terminal to copy to.");
      return;
    }
    Optional<AnswerText> found = AnswerText.last(state);
    if (found.isEmpty()) {
      state.notice(Tone.ERROR, state.viewed().map(n -> "✗ #" + n + " has no answer to copy.")
          .orElse("✗ There is no answer to copy yet in this tab."));
      return;
    }
    AnswerText answer = found.get();
    List<AnswerText.CodeBlock> blocks = answer.codeBlocks();
    String copied;
    String what;
    if (block == 0) {
      copied = answer.text();
      what = "the answer of #" + answer.checkpoint();
    } else if (block > blocks.size()) {
      state.notice(Tone.ERROR, "✗ The answer of #" + answer.checkpoint() + (blocks.isEmpty() ? " has no code block."
          : " has " + count(blocks.size(), "code block") + ": " + range(blocks.size()) + "."));
      return;
    } else {
      AnswerText.CodeBlock code = blocks.get(block - 1);
      copied = code.code();
      what = "code block " + block + " of " + blocks.size() + (code.language().isEmpty() ? "" : " (" + code.language() + ")")
          + " of #" + answer.checkpoint() + "'s answer";
    }
    clipboard.get().copy(copied);
    String more = block == 0 && !blocks.isEmpty() ? " " + range(blocks.size()) + " copies "
        + (blocks.size() == 1 ? "its code block" : "one of its " + blocks.size() + " code blocks") + " alone." : "";
    String tmux = clipboard.get().tmux() ? " In tmux the clipboard is reached with set-clipboard on (or allow-passthrough on)."
        : "";
    state.notice(Tone.MUTED, "✓ Copied " + what + " to the clipboard: " + count(copied.lines().count(), "line") + ", "
        + count(copied.codePointCount(0, copied.length()), "character") + "." + more + tmux);
  }

  /** {@code /export-chat FILE [--force]}: the live path's conversation as Markdown, written through core. */
  static void export(TabState state, String title, SlashCommand.Parsed.ExportChat asked, Path project, Path home,
      ZoneId zone) {
    ChatMarkdown.Export chat = ChatMarkdown.render(state, title, zone);
    if (chat.checkpoints() == 0) {
      state.notice(Tone.ERROR, "✗ This tab has no conversation to export yet; nothing written.");
      return;
    }
    ExportFile.Outcome done = ExportFile.write(project, home, asked.file(), chat.markdown(), asked.force());
    String named = asked.file();
    String where = done.file() == null || done.file().toString().equals(named) ? named
        : named + " (" + done.file() + ")";
    if (done.written()) {
      state.notice(Tone.MUTED, "✓ " + (done.replaced() ? "Replaced " + where + " with" : "Wrote") + " this tab's "
          + "conversation" + (done.replaced() ? "" : " to " + where) + ": " + count(chat.checkpoints(), "checkpoint")
          + ", " + count(chat.markdown().lines().count(), "line") + " of Markdown.");
      return;
    }
    String why = switch (done.refusal().orElseThrow()) {
      case BAD_NAME -> "\"" + named + "\" cannot be a file name" + (done.problem().isEmpty() ? "" : " (" + done.problem()
          + ")") + ".";
      case DIRECTORY -> where + " is a directory: name a file in it, e.g. /export-chat " + slash(named) + "chat.md.";
      case NO_DIRECTORY -> "there is no directory " + done.file().getParent() + " to write " + named + " in.";
      case EXISTS -> where + " exists already: /export-chat " + named + " --force replaces it.";
      case FAILED -> "could not write " + where + ": " + done.problem() + ".";
    };
    state.notice(Tone.ERROR, "✗ Nothing written: " + why);
  }

  private static String slash(String directory) {
    return directory.endsWith("/") ? directory : directory + "/";
  }

  private static String range(int blocks) {
    return blocks == 1 ? "/copy 1" : blocks == 2 ? "/copy 1 or /copy 2" : "/copy 1 to /copy " + blocks;
  }

  private static String count(long n, String noun) {
    return String.format(Locale.ROOT, "%,d", n) + " " + noun + (n == 1 ? "" : "s");
  }
}
