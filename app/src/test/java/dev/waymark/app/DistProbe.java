package dev.waymark.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import javax.crypto.KeyAgreement;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Run by DistIT on the distribution's own runtime: what an HTTPS connection to a provider and a
 * fetched web page need from modules no import names (they are found by name at run time).
 */
final class DistProbe {
  private DistProbe() {}

  public static void main(String[] args) throws Exception {
    SSLEngine engine = SSLContext.getDefault().createSSLEngine("example.org", 443);
    engine.setUseClientMode(true);
    System.out.println("ECDHE suites: " + Arrays.stream(engine.getEnabledCipherSuites()).anyMatch(s -> s.startsWith("TLS_ECDHE_")));
    System.out.println("X25519: " + agrees("X25519"));
    System.out.println("ECDH: " + agrees("ECDH"));
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init((KeyStore) null);
    System.out.println("trusted authorities: " + ((X509TrustManager) trust.getTrustManagers()[0]).getAcceptedIssuers().length);
    System.out.println("ISO-2022-JP: " + Charset.isSupported("ISO-2022-JP"));
    try {
      System.out.println("HTTPS: " + https());
    } catch (Exception | LinkageError failed) {
      System.out.println("HTTPS: failed: " + failed);
    }
  }

  /** A whole HTTPS exchange through java.net.http with an EC certificate the runtime's keytool makes: a provider's handshake, on loopback. */
  private static String https() throws Exception {
    Path dir = Files.createTempDirectory("dist-probe");
    Path store = dir.resolve("probe.p12");
    try {
      return https(store);
    } finally {
      Files.deleteIfExists(store);
      Files.delete(dir);
    }
  }

  private static String https(Path store) throws Exception {
    char[] password = "probe-pass".toCharArray();
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
        "-keyalg", "EC", "-groupname", "secp256r1", "-alias", "probe", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1",
        "-validity", "1", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(password))
        .redirectErrorStream(true).start();
    String said = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (keytool.waitFor() != 0) {
      return "failed: keytool: " + said.strip();
    }
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, password);
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, password);
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(keys);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
    try (ServerSocket server = context.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread answer = new Thread(() -> {
        try (Socket socket = server.accept()) {
          BufferedReader request = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
          for (String line = request.readLine(); line != null && !line.isEmpty(); line = request.readLine()) {
            // the request's head, up to the blank line
          }
          socket.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
              .getBytes(StandardCharsets.US_ASCII));
        } catch (IOException ignored) {
          // the client reports the failure
        }
      });
      answer.start();
      HttpClient client = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<String> response = client.send(
          HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.getLocalPort() + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      answer.join();
      return response.statusCode() + " " + response.body() + " " + response.sslSession().map(SSLSession::getProtocol).orElse("no TLS");
    }
  }

  private static boolean agrees(String algorithm) {
    try {
      KeyAgreement.getInstance(algorithm);
      return true;
    } catch (Exception missing) {
      return false;
    }
  }
}
