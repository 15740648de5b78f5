package io.holdfast.etcd;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1, made with the JDK's own {@code keytool} and written as PEM
 * files etcd and jetcd read: {@code cert.pem} (also the trust anchor) and {@code key.pem} (PKCS#8).
 */
record TestCertificates(Path cert, Path key) {

    static TestCertificates create(Path dir) throws Exception {
        Path store = dir.resolve("server.p12");
        char[] password = "changeit".toCharArray();
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", new String(password), "-alias", "etcd", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, password);
        }
        Key key = ks.getKey("etcd", password);
        Certificate cert = ks.getCertificate("etcd");
        Path certPem = dir.resolve("cert.pem");
        Path keyPem = dir.resolve("key.pem");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8
        return new TestCertificates(certPem, keyPem);
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return String.join("\n", List.of("-----BEGIN " + type + "-----", body, "-----END " + type + "-----", ""));
    }
}
