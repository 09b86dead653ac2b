package dev.waymark.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The seccomp program's decisions, run by a small classic-BPF interpreter over the
 * {@code seccomp_data} a kernel would give it: for each ABI a program of the machine could use.
 */
class SocketFilterTest {
  static final int ALLOW = SocketFilter.RET_ALLOW;
  static final int KILL = SocketFilter.RET_KILL_PROCESS;
  static final int EPERM = SocketFilter.RET_ERRNO | SocketFilter.EPERM;
  static final int ENOSYS = SocketFilter.RET_ERRNO | SocketFilter.ENOSYS;
  static final int X86_64 = SocketFilter.AUDIT_ARCH_X86_64;
  static final int I386 = SocketFilter.AUDIT_ARCH_I386;
  static final int AARCH64 = SocketFilter.AUDIT_ARCH_AARCH64;
  static final int AF_INET = 2;
  static final int SOCK_STREAM = 1;
  static final int SOCK_CLOEXEC = 0x80000;

  @Test
  void onX86_64AUnixSocketIsRefusedAndEverythingElseAllowed() {
    byte[] p = SocketFilter.forArch("amd64").orElseThrow().program();
    assertThat(run(p, X86_64, 41, 1, SOCK_STREAM)).isEqualTo(EPERM); // socket(AF_UNIX, SOCK_STREAM)
    assertThat(run(p, X86_64, 41, 1, SocketFilter.SOCK_DGRAM | SOCK_CLOEXEC)).isEqualTo(EPERM);
    assertThat(run(p, X86_64, 41, 1L | 0x1_0000_0000L, SOCK_STREAM)).as("the kernel reads an int").isEqualTo(EPERM);
    assertThat(run(p, X86_64, 41, AF_INET, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, X86_64, 53, 1, SocketFilter.SOCK_DGRAM | SOCK_CLOEXEC)).isEqualTo(EPERM); // socketpair, datagram
    assertThat(run(p, X86_64, 53, 1, SOCK_STREAM | SOCK_CLOEXEC)).isEqualTo(ALLOW); // a connected pair reaches nothing
    assertThat(run(p, X86_64, 425, 0, 0)).isEqualTo(ENOSYS); // io_uring_setup
    assertThat(run(p, X86_64, 427, 0, 0)).isEqualTo(ENOSYS);
    assertThat(run(p, X86_64, 428, 0, 0)).isEqualTo(ALLOW);
    assertThat(run(p, X86_64, 0, 1, 0)).isEqualTo(ALLOW); // read
    assertThat(run(p, X86_64, 42, 1, 0)).isEqualTo(ALLOW); // connect: seccomp cannot see the path
    assertThat(run(p, X86_64, 0x40000000 | 41, 1, SOCK_STREAM)).as("x32").isEqualTo(KILL);
    assertThat(run(p, X86_64, 0x40000000, 0, 0)).as("x32").isEqualTo(KILL);
    assertThat(run(p, AARCH64, 198, 1, SOCK_STREAM)).as("a foreign ABI").isEqualTo(KILL);
    assertThat(run(p, 0x40000028, 281, 1, SOCK_STREAM)).as("arm").isEqualTo(KILL);
  }

  @Test
  void onX86_64A32BitProgramHasTheSameRulesAndNoSocketcallToMakeOne() {
    byte[] p = SocketFilter.forArch("x86_64").orElseThrow().program();
    assertThat(run(p, I386, 359, 1, SOCK_STREAM)).isEqualTo(EPERM);
    assertThat(run(p, I386, 359, AF_INET, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, I386, 360, 1, SocketFilter.SOCK_DGRAM)).isEqualTo(EPERM);
    assertThat(run(p, I386, 360, 1, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, I386, 102, SocketFilter.SYS_SOCKET, 0)).as("socketcall's arguments are behind a pointer")
        .isEqualTo(EPERM);
    assertThat(run(p, I386, 102, SocketFilter.SYS_SOCKETPAIR, 0)).isEqualTo(EPERM);
    assertThat(run(p, I386, 102, 3, 0)).as("socketcall(SYS_CONNECT) of a socket it has").isEqualTo(ALLOW);
    assertThat(run(p, I386, 41, 1, SOCK_STREAM)).as("41 is not socket on i386").isEqualTo(ALLOW);
    assertThat(run(p, I386, 426, 0, 0)).isEqualTo(ENOSYS);
  }

  @Test
  void onAarch64TheSameWithItsNumbersAndNoOtherAbi() {
    byte[] p = SocketFilter.forArch("aarch64").orElseThrow().program();
    assertThat(run(p, AARCH64, 198, 1, SOCK_STREAM)).isEqualTo(EPERM);
    assertThat(run(p, AARCH64, 198, AF_INET, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, AARCH64, 199, 1, SocketFilter.SOCK_DGRAM)).isEqualTo(EPERM);
    assertThat(run(p, AARCH64, 199, 1, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, AARCH64, 41, 1, SOCK_STREAM)).isEqualTo(ALLOW);
    assertThat(run(p, AARCH64, 425, 0, 0)).isEqualTo(ENOSYS);
    assertThat(run(p, 0x40000028, 281, 1, SOCK_STREAM)).as("arm 32-bit").isEqualTo(KILL);
    assertThat(run(p, X86_64, 41, 1, SOCK_STREAM)).isEqualTo(KILL);
  }

  @Test
  void otherMachinesHaveNoProgram() {
    assertThat(SocketFilter.forArch("riscv64")).isEmpty();
    assertThat(SocketFilter.forArch("x86")).isEmpty();
  }

  /** The program's verdict for system call {@code nr} of ABI {@code arch} with these first two arguments. */
  static int run(byte[] program, int arch, int nr, long arg0, long arg1) {
    ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    data.putInt(0, nr).putInt(4, arch).putLong(16, arg0).putLong(24, arg1);
    ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.nativeOrder());
    int a = 0;
    for (int pc = 0; pc < program.length / 8; pc++) {
      int op = code.getShort(pc * 8) & 0xffff;
      int jt = code.get(pc * 8 + 2) & 0xff;
      int jf = code.get(pc * 8 + 3) & 0xff;
      int k = code.getInt(pc * 8 + 4);
      switch (op) {
        case 0x20 -> a = data.getInt(k);
        case 0x54 -> a &= k;
        case 0x15 -> pc += a == k ? jt : jf;
        case 0x35 -> pc += Integer.compareUnsigned(a, k) >= 0 ? jt : jf;
        case 0x06 -> {
          return k;
        }
        default -> throw new AssertionError("unknown instruction " + Integer.toHexString(op) + " at " + pc);
      }
    }
    throw new AssertionError("the program ran off its end");
  }
}
