package dev.waymark.tui.run;

import dev.waymark.core.session.SessionStore;
import dev.waymark.tui.screen.Picker;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code /resume}'s list: the project's saved sessions, newest first, each by its title (its name,
 * else its first prompt) with when it was last changed, filtered as the user types by title, first
 * prompt, date (as shown: {@code 2026-12-07 14:02}) and id.
 */
final class ResumePicker {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

  private ResumePicker() {}

  /** The picker over {@code sessions}; {@code open}: the id of the session shown now; empty when there are none. */
  static Optional<Picker> of(List<SessionStore.Listing> sessions, String open, ZoneId zone, Consumer<String> load) {
    if (sessions.isEmpty()) {
      return Optional.empty();
    }
    List<Picker.Choice> choices = new ArrayList<>();
    List<String> searched = new ArrayList<>();
    for (int i = 0; i < sessions.size(); i++) {
      SessionStore.Listing s = sessions.get(i);
      String when = s.updated() == null ? "" : WHEN.format(s.updated().atZone(zone));
      String label = s.problem().isPresent() ? s.id() + " (cannot be loaded)"
          : s.title().isEmpty() ? "(no prompt yet)" : s.title();
      String detail = when + (s.problem().isPresent() ? " · " + s.problem().get()
          : " · " + s.tabs() + (s.tabs() == 1 ? " tab" : " tabs") + " · " + s.checkpoints()
              + (s.checkpoints() == 1 ? " checkpoint" : " checkpoints") + " · " + s.id()
              + (s.id().equals(open) ? " · open now" : ""));
      choices.add(new Picker.Choice(label, detail, i));
      searched.add(String.join(" ", s.title(), s.prompt(), when, s.id()));
    }
    return Optional.of(Picker.searchable("Resume a session", choices, searched,
        chosen -> load.accept(sessions.get(chosen.value()).id())));
  }
}
