package dev.waymark.app;

import java.nio.charset.Charset;
import java.security.KeyStore;
import java.util.Arrays;
import javax.crypto.KeyAgreement;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
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
