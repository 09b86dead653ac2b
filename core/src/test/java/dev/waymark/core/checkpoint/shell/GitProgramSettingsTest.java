package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which git settings a command may leave, read as git reads them (sections, subsections, quoting,
 * case): only those git reads as data; any other is taken for one that runs a program.
 */
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
      "[core\n\tbroken",
      "[gpg]\n\tformat = ssh\n[gpg \"ssh\"]\n\tdefaultKeyCommand = ./key.sh\n[commit]\n\tgpgSign = true\n",
      "[gpg \"ssh\"]\n\tdefaultKeyCommand = ./key.sh\n",
      "[gpg \"x509\"]\n\tprogram = ./x\n",
      "[sequence]\n\teditor = ./x\n",
      "[uploadpack]\n\tpackObjectsHook = ./x\n",
      "[core]\n\taskPass = ./x\n",
      "[core]\n\talternateRefsCommand = ./x\n",
      "[credential \"https://example.org\"]\n\thelper = ./x\n",
      "[diff \"x\"]\n\tcommand = ./x\n",
      "[difftool \"x\"]\n\tcmd = ./x\n",
      "[mergetool \"x\"]\n\tcmd = ./x\n",
      "[sendemail]\n\tsendmailCmd = ./x\n",
      "[trailer \"x\"]\n\tcommand = ./x\n",
      "[remote \"origin\"]\n\tvcs = x\n",
      "[url \"ext::sh -c x\"]\n\tinsteadOf = https://example.org/\n",
      "[protocol \"ext\"]\n\tallow = always\n",
      "[alias \"st\"]\n\tcommand = !sh -c evil\n",
      "[someFutureSection]\n\tcommand = ./x\n"})
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
      "[submodule \"m\"]\n\turl = ../m\n\tactive = true\n",
      "[core]\n\tbare\n\tsparseCheckout = true\n[extensions]\n\tworktreeConfig = true\n[index]\n\tsparse = true\n",
      "[core]\n\trepositoryformatversion = 1\n[remote \"origin\"]\n\turl = ../r\n\tpromisor = true\n"
          + "\tpartialclonefilter = blob:none\n[extensions]\n\tpartialClone = origin\n",
      "[protocol \"ext\"]\n\tallow = never\n[protocol]\n\tversion = 2\n",
      "[user]\n\tsigningKey = ABC\n[color \"diff\"]\n\tmeta = yellow\n[pull]\n\trebase = true\n"})
  void ordinarySettingsAreNot(String config) {
    assertThat(GitProgramSettings.runsAProgram(config)).isEmpty();
  }
}
