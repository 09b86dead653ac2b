package dev.waymark.core.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The seccomp program ({@code bwrap --seccomp}) that keeps a sandboxed command from making a Unix
 * socket, so that it can connect to none outside the sandbox: a read-only file system still lets a
 * process connect to the sockets on it. Seccomp cannot read the path {@code connect()} is given,
 * so the program refuses the sockets that could be pointed anywhere: {@code socket(AF_UNIX, …)}
 * and a datagram {@code socketpair} (a datagram socket can {@code sendto} any path) with EPERM,
 * and io_uring (whose operations make sockets without a system call) with ENOSYS. Everything else
 * is allowed: TCP/UDP sockets (the network namespace decides), stream pairs, pipes.
 *
 * <p>Classic BPF over {@code struct seccomp_data} ({@code nr} at 0, {@code arch} at 4, {@code args}
 * from 16). The architecture is checked first: a system call of another ABI is a different table
 * with other numbers. On x86_64, 32-bit (i386) programs get the same rules with their own numbers,
 * {@code socketcall(SYS_SOCKET)} and {@code socketcall(SYS_SOCKETPAIR)} refused as a whole (their
 * arguments are behind a pointer); x32 and any other ABI are killed.
 *
 * @param arch the {@code AUDIT_ARCH_*} value this program is for
 * @param program the instructions, 8 bytes each, in this machine's byte order
 */
public record SocketFilter(int arch, byte[] program) {
  static final int AUDIT_ARCH_X86_64 = 0xC000003E;
  static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
  static final int AUDIT_ARCH_I386 = 0x40000003;
  static final int X32_SYSCALL_BIT = 0x40000000;
  static final int AF_UNIX = 1;
  static final int SOCK_DGRAM = 2;
  static final int SOCK_TYPE_MASK = 0xf; // SOCK_NONBLOCK and SOCK_CLOEXEC ride in the same argument
  static final int SYS_SOCKET = 1;
  static final int SYS_SOCKETPAIR = 8;
  static final int RET_ALLOW = 0x7fff0000;
  static final int RET_KILL_PROCESS = 0x80000000;
  static final int RET_ERRNO = 0x00050000;
  static final int EPERM = 1;
  static final int ENOSYS = 38;

  /** The numbers of the system calls the program looks at, in one ABI. */
  private record Table(int socket, int socketpair, int socketcall, int ioUringFirst, int ioUringLast) {}

  private static final Table X86_64 = new Table(41, 53, -1, 425, 427);
  private static final Table AARCH64 = new Table(198, 199, -1, 425, 427);
  private static final Table I386 = new Table(359, 360, 102, 425, 427);

  /** The program for the machine {@code osArch} ({@code os.arch}) names; empty where Waymark has none. */
  public static Optional<SocketFilter> forArch(String osArch) {
    return switch (osArch.toLowerCase(Locale.ROOT)) {
      case "amd64", "x86_64" -> Optional.of(new SocketFilter(AUDIT_ARCH_X86_64, x86_64()));
      case "aarch64", "arm64" -> Optional.of(new SocketFilter(AUDIT_ARCH_AARCH64, native64(AUDIT_ARCH_AARCH64, AARCH64)));
      default -> Optional.empty();
    };
  }

  /** The bytes {@code bwrap --seccomp} reads. */
  @Override
  public byte[] program() {
    return program.clone();
  }

  /**
   * The file of this program in {@code dir} (which exists), written unless it is there with these bytes. Readable
   * by everyone (it is no secret, and a test starts the sandbox as another user); replaced by a
   * rename, so a sandbox starting meanwhile reads the old whole or the new whole.
   */
  public Path writeTo(Path dir) throws IOException {
    Path file = dir.resolve("unix-sockets-" + Integer.toHexString(arch) + ".bpf");
    try {
      if (Arrays.equals(Files.readAllBytes(file), program)) {
        return file;
      }
    } catch (IOException absent) {
      // written below
    }
    Path temp = Files.createTempFile(dir, "unix-sockets-", ".tmp");
    try {
      Files.write(temp, program);
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--")); // whatever the umask
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
    return file;
  }

  /** The program for the machine this JVM runs on. */
  public static Optional<SocketFilter> here() {
    return forArch(System.getProperty("os.arch", ""));
  }

  private static byte[] x86_64() {
    Assembler a = new Assembler();
    a.load(4).jumpIf(AUDIT_ARCH_X86_64, "x86_64").jumpIf(AUDIT_ARCH_I386, "i386").ret(RET_KILL_PROCESS);
    a.label("x86_64").load(0).jumpIfAtLeast(X32_SYSCALL_BIT, "kill");
    rules(a, X86_64, "x86_64:");
    a.label("i386").load(0);
    rules(a, I386, "i386:");
    a.label("kill").ret(RET_KILL_PROCESS);
    return a.bytes();
  }

  private static byte[] native64(int arch, Table table) {
    Assembler a = new Assembler();
    a.load(4).jumpIf(arch, "native").ret(RET_KILL_PROCESS);
    a.label("native").load(0);
    rules(a, table, "");
    return a.bytes();
  }

  /** The rules of one ABI, with the system call number loaded; labels are prefixed to stay apart. */
  private static void rules(Assembler a, Table t, String p) {
    a.jumpIf(t.socket(), p + "socket").jumpIf(t.socketpair(), p + "pair");
    if (t.socketcall() >= 0) {
      a.jumpIf(t.socketcall(), p + "socketcall");
    }
    a.jumpIfAtLeast(t.ioUringFirst(), p + "uring").ret(RET_ALLOW);
    a.label(p + "uring").jumpIfAtLeast(t.ioUringLast() + 1, p + "allow").ret(RET_ERRNO | ENOSYS);
    a.label(p + "socket").load(16).jumpIf(AF_UNIX, p + "deny").ret(RET_ALLOW);
    a.label(p + "pair").load(24).and(SOCK_TYPE_MASK).jumpIf(SOCK_DGRAM, p + "deny").ret(RET_ALLOW);
    if (t.socketcall() >= 0) {
      a.label(p + "socketcall").load(16).jumpIf(SYS_SOCKET, p + "deny").jumpIf(SYS_SOCKETPAIR, p + "deny").ret(RET_ALLOW);
    }
    a.label(p + "deny").ret(RET_ERRNO | EPERM);
    a.label(p + "allow").ret(RET_ALLOW);
  }

  /** Classic BPF with forward jumps to labels, resolved when the bytes are asked for. */
  private static final class Assembler {
    private static final int LD_W_ABS = 0x20;
    private static final int JEQ_K = 0x15;
    private static final int JGE_K = 0x35;
    private static final int AND_K = 0x54;
    private static final int RET_K = 0x06;

    private record Insn(int code, String target, int k) {}

    private final List<Insn> insns = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();

    Assembler load(int offset) {
      insns.add(new Insn(LD_W_ABS, null, offset));
      return this;
    }

    Assembler and(int mask) {
      insns.add(new Insn(AND_K, null, mask));
      return this;
    }

    Assembler jumpIf(int value, String target) {
      insns.add(new Insn(JEQ_K, target, value));
      return this;
    }

    Assembler jumpIfAtLeast(int value, String target) {
      insns.add(new Insn(JGE_K, target, value));
      return this;
    }

    Assembler ret(int value) {
      insns.add(new Insn(RET_K, null, value));
      return this;
    }

    Assembler label(String name) {
      if (labels.putIfAbsent(name, insns.size()) != null) {
        throw new IllegalStateException("label " + name + " twice");
      }
      return this;
    }

    byte[] bytes() {
      ByteBuffer out = ByteBuffer.allocate(insns.size() * 8).order(ByteOrder.nativeOrder());
      for (int i = 0; i < insns.size(); i++) {
        Insn insn = insns.get(i);
        int jump = 0;
        if (insn.target() != null) {
          Integer at = labels.get(insn.target());
          if (at == null || at <= i || at - i - 1 > 255) {
            throw new IllegalStateException("no forward label " + insn.target() + " within reach of " + i);
          }
          jump = at - i - 1; // taken: to the label; not taken: the next instruction
        }
        out.putShort((short) insn.code()).put((byte) jump).put((byte) 0).putInt(insn.k());
      }
      return out.array();
    }
  }
}
