package dev.waymark.core.wording;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.ViewAct;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a land, a discard and the undo and redo of a land say (#47 cases 3, 4): the project first, then the view. */
class ViewWordingTest {
  private static RestoreResult landed(List<String> written, List<String> setAside, boolean isolated) {
    return new RestoreResult(true, 1, 2, written, List.of(), setAside, setAside.isEmpty() ? Optional.empty()
        : Optional.of("waymark/t1/rescued/2"), List.of(0, 1, 2), List.of(), "Landed the view as #2")
        .with(new ViewAct(ViewAct.Kind.LANDED, 2, written.size() + setAside.size(), setAside, isolated));
  }

  @Test
  void aLandThatClashesSaysTheUsersVersionWasKeptAndTheTabsSetAside() {
    assertThat(Wording.restored(landed(List.of("b.txt"), List.of("a.txt"), false))).isEqualTo(
        "Landed the view as #2: on the project, 1 file written. a.txt was changed in the project since the tab first "
            + "changed it: the project's version is kept, the tab's set aside under waymark/t1/rescued/2. "
            + "The tab now works on the project itself.")
        .doesNotContain("overwritten");
  }

  @Test
  void aLandThatSetsEverythingAsideSaysNothingLandedAndTheTabStaysIsolated() {
    assertThat(Wording.restored(landed(List.of(), List.of("a.txt"), true))).isEqualTo(
        "Landed nothing (#2): a.txt was changed in the project since the tab first changed it: the project's version "
            + "is kept, the tab's set aside under waymark/t1/rescued/2. The tab stays isolated, its view as it was: "
            + "resolve the clash, then land again.");
  }

  @Test
  void aDiscardSaysTheProjectDidNotChange() {
    RestoreResult discarded = new RestoreResult(true, 1, 2, List.of("a.txt"), List.of(), List.of(), Optional.empty(),
        List.of(0, 1, 2), List.of(), "Discarded the view as #2").with(new ViewAct(ViewAct.Kind.DISCARDED, 2, 1, List.of(), true));
    assertThat(Wording.restored(discarded)).isEqualTo("Discarded the view as #2: the project did not change; 1 file of "
        + "the view dropped (a.txt). The tab stays isolated, its view empty; undo brings them back.");
  }
}
