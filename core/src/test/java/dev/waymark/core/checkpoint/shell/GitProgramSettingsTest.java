package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which git settings name a program, read as git reads them (sections, subsections, quoting, case). */
class GitProgramSettingsTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "[core]\n\tfsmonitor = ./watch.sh\n",
      "[core]\n\tpager = less; sh evil\n",
      "[CORE]\n\tEditor = vi\n",
      "[core]\n\tsshCommand = ssh -o ProxyCommand=evil\n",
      "[core]\n\thooksPath = tools/hooks\n",
      "[filter \"lfs\"]\n\tsmudge = ./x\n",
      "[filter \"x\"]\n\tprocess = ./x\n",
      "[diff \"pdf\"]\n\ttextconv = ./x\n",
      "[diff]\n\texternal = ./x\n",
      "[merge \"ours\"]\n\tdriver = ./x %A\n",
      "[alias]\n\tst = \"!sh -c evil\"\n",
      "[include]\n\tpath = ../settings\n",
      "[includeIf \"gitdir:/\"]\n\tpath = ../settings\n",
      "[pager]\n\tlog = ./x\n",
      "[gpg]\n\tprogram = ./x\n",
      "[credential]\n\thelper = !./x\n",
      "[remote \"origin\"]\n\tuploadpack = ./x\n",
      "[protocol]\n\tallow = always\n",
      "[submodule \"m\"]\n\tupdate = !./x\n",
      "[core\n\tbroken"})
  void aSettingThatRunsAProgramIsFound(String config) {
    assertThat(GitProgramSettings.runsAProgram(config)).isPresent();
  }

  @Test
  void aSettingTheFileHeldAlreadyIsNotTheCommandsButAChangedValueIs() {
    String before = "[core]\n\tpager = less\n";
    assertThat(GitProgramSettings.runsAProgram(before + "[user]\n\tname = a\n", before)).isEmpty();
    assertThat(GitProgramSettings.runsAProgram("[core]\n\tpager = sh evil\n", before)).contains("core.pager");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
      "[core]\n\tfsmonitor = false\n",
      "[core]\n\tfsmonitor = true\n",
      "[user]\n\tname = agent\n",
      "[alias]\n\tst = status -s\n",
      "[remote \"origin\"]\n\turl = https://example.org/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
      "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
      "[submodule \"m\"]\n\turl = ../m\n\tactive = true\n"})
  void ordinarySettingsAreNot(String config) {
    assertThat(GitProgramSettings.runsAProgram(config)).isEmpty();
  }
}
