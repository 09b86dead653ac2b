package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.eclipse.jgit.lib.ObjectId;

/**
 * How a {@link StatCache} entry, a stat and a checksummed part are written in the cache's files:
 * the byte layout apart from when and where the cache saves, so that either can change alone.
 */
final class StatCacheFormat {
  private StatCacheFormat() {}

  /**
   * The bytes of {@code bytes[offset, offset+length)} before its last 8, which are their CRC-32. A
   * buffer, not a stream: a new process reads 100,000 entries before its first command, with a
   * compiler that has not caught up yet.
   */
  static ByteBuffer checked(byte[] bytes, int offset, int length) throws IOException {
    if (length < 8) {
      throw new IOException("too short");
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, offset, length - 8);
    if (crc.getValue() != ByteBuffer.wrap(bytes, offset + length - 8, 8).getLong()) {
      throw new IOException("checksum mismatch");
    }
    return ByteBuffer.wrap(bytes, offset, length - 8).slice();
  }

  private static final FileKind[] KINDS = FileKind.values();
  private static final StatCache.Source[] SOURCES = StatCache.Source.values();

  /** A path as {@link DataOutputStream#writeUTF} wrote it: ASCII as it is, anything else decoded by the JDK. */
  static String readPath(ByteBuffer in) throws IOException {
    int start = in.position();
    int length = Short.toUnsignedInt(in.getShort());
    byte[] array = in.array();
    int from = in.arrayOffset() + in.position();
    boolean ascii = true;
    for (int i = 0; i < length && ascii; i++) {
      byte b = array[from + i];
      ascii = b > 0; // modified UTF-8 writes NUL as two bytes, and anything past 0x7F as two or three
    }
    if (ascii) {
      in.position(in.position() + length);
      return new String(array, from, length, StandardCharsets.ISO_8859_1);
    }
    String path = DataInputStream.readUTF(new DataInputStream(
        new ByteArrayInputStream(array, in.arrayOffset() + start, 2 + length)));
    in.position(start + 2 + length);
    return path;
  }

  static FileStat readStat(ByteBuffer in) {
    FileKind kind = KINDS[in.get()];
    return new FileStat(kind, false, in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getInt());
  }

  static void writeStat(DataOutputStream out, FileStat stat) throws IOException {
    out.writeByte(stat.kind().ordinal());
    out.writeLong(stat.size());
    out.writeLong(stat.mtimeNanos());
    out.writeLong(stat.ctimeNanos());
    out.writeLong(stat.inode());
    out.writeInt(stat.mode());
  }

  static StatCache.Entry readEntry(ByteBuffer in) {
    FileStat stat = readStat(in);
    FileKind kind = stat.kind();
    ObjectId id = ObjectId.fromRaw(in.array(), in.arrayOffset() + in.position());
    in.position(in.position() + 20);
    StatCache.Source source = SOURCES[in.get()];
    return new StatCache.Entry(stat, new FileVersion(kind, id, stat.permissionBits()), source, in.getLong());
  }

  static void writeEntry(DataOutputStream out, StatCache.Entry entry) throws IOException {
    writeStat(out, entry.stat());
    byte[] id = new byte[20];
    entry.version().blob().copyRawTo(id, 0);
    out.write(id);
    out.writeByte(entry.source().ordinal());
    out.writeLong(entry.seenAtMillis());
  }

  static byte[] withChecksum(ByteArrayOutputStream bytes) {
    CRC32 crc = new CRC32();
    byte[] body = bytes.toByteArray();
    crc.update(body);
    return ByteBuffer.allocate(body.length + 8).put(body).putLong(crc.getValue()).array();
  }
}
