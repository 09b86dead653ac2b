package dev.waymark.tui.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The command menu's matching and the "did you mean" of a mistyped command. */
class CommandCatalogTest {
  private final CommandCatalog catalog = new CommandCatalog();

  @Test
  void theMenuShowsCommandsStartingWithWhatWasTypedThenOnesContainingItThenDescriptions() {
    assertThat(catalog.matching("/")).hasSameSizeAs(CommandCatalog.BUILT_IN);
    assertThat(catalog.matching("/st")).extracting(CommandEntry::command).containsExactly("/status");
    assertThat(catalog.matching("/mod")).extracting(CommandEntry::command).containsExactly("/mode", "/model");
    assertThat(catalog.matching("/reopen")).extracting(CommandEntry::command).containsExactly("/tab reopen");
    assertThat(catalog.matching("/tokens")).extracting(CommandEntry::command).containsExactly("/status", "/cost");
    assertThat(catalog.matching("/undo 3")).as("an argument typed: no menu, Enter runs it").isEmpty();
    assertThat(catalog.matching("/land --keep-isolated")).as("the land's choice typed: Enter runs it").isEmpty();
    assertThat(catalog.matching("/land")).singleElement().satisfies(land -> assertThat(land.needsArguments()).isFalse());
    assertThat(catalog.matching("/zzzz")).isEmpty();
  }

  @Test
  void aMistypedCommandSuggestsTheNearestOnlyWhenItIsNear() {
    assertThat(catalog.nearest("/mdoe")).hasValue("/mode");
    assertThat(catalog.nearest("/stauts")).hasValue("/status");
    assertThat(catalog.nearest("/chekpoint")).hasValue("/checkpoint");
    assertThat(catalog.nearest("/frobnicate")).isEmpty();
  }

  @Test
  void anEntryKnowsWhatIsTypedToRunItAndWhetherItNeedsAnArgument() {
    CommandEntry load = new CommandEntry("/session load ID|NAME", "");
    assertThat(load.command()).isEqualTo("/session load");
    assertThat(load.needsArguments()).isTrue();
    CommandEntry undo = new CommandEntry("/undo [N]", "");
    assertThat(undo.command()).isEqualTo("/undo");
    assertThat(undo.needsArguments()).isFalse();
    assertThat(undo.takesArguments()).isTrue();
    assertThat(new CommandEntry("/checkpoint N", "").needsArguments()).isTrue();
    assertThat(new CommandEntry("/status", "").takesArguments()).isFalse();
  }

  @Test
  void addedCommandsJoinTheMenuOnce() {
    catalog.add(new CommandEntry("/review", "review the changes"));
    catalog.add(new CommandEntry("/review", "again"));
    assertThat(catalog.matching("/revi")).extracting(CommandEntry::description).containsExactly("review the changes");
  }

  @Test
  void aSourcesCommandsAreReplacedWholeWhenItsListChanges() {
    catalog.replace("mcp:gh", List.of(new CommandEntry("/gh:review <pr> [focus]", "review a PR"),
        new CommandEntry("/gh:triage", "")));
    assertThat(catalog.matching("/gh:")).extracting(CommandEntry::usage).containsExactly("/gh:review <pr> [focus]", "/gh:triage");
    catalog.replace("mcp:gh", List.of(new CommandEntry("/gh:triage", "now described")));
    assertThat(catalog.matching("/gh:")).extracting(CommandEntry::description).containsExactly("now described");
    assertThat(catalog.nearest("/gh:triag")).hasValue("/gh:triage");
    catalog.replace("mcp:gh", List.of());
    assertThat(catalog.matching("/gh:")).isEmpty();
    catalog.replace("mcp:x", List.of(new CommandEntry("/help", "not twice")));
    assertThat(catalog.entries()).hasSameSizeAs(CommandCatalog.BUILT_IN);
  }

  @Test
  void aServersPromptIsTypedByItsFirstWordWhateverItsCaseAndItsAngledArgumentIsNeeded() {
    CommandEntry review = new CommandEntry("/GitHub:Review <pr> [focus]", "");
    assertThat(review.command()).isEqualTo("/GitHub:Review");
    assertThat(review.needsArguments()).isTrue();
    CommandEntry optional = new CommandEntry("/gh:summary [since]", "");
    assertThat(optional.command()).isEqualTo("/gh:summary");
    assertThat(optional.needsArguments()).isFalse();
    assertThat(optional.takesArguments()).isTrue();
  }
}
