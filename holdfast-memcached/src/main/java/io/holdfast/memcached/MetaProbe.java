package io.holdfast.memcached;

import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two text-protocol commands operators need and xmemcached does not speak: {@code mg KEY t v} (value and
 * time to live, Memcached 1.6+) and {@code lru_crawler metadump hash} (every key, by a walk of the hash table). Used
 * only by status and list, never on the lock path; one short connection per call.
 */
final class MetaProbe {
    private static final int CRAWLER_BUSY_RETRIES = 40;

    /**
     * A key's value and its time to live by the server's clock.
     *
     * @param value the stored bytes
     * @param ttlSeconds whole seconds until the server expires the key, -1 if it never does
     */
    record Entry(byte[] value, long ttlSeconds) {
    }

    private final String backend;
    private final String address;
    private final int timeoutMillis;
    private final int connectTimeoutMillis;

    MetaProbe(String backend, String address, long timeoutMillis, long connectTimeoutMillis) {
        this.backend = backend;
        this.address = address;
        this.timeoutMillis = (int) timeoutMillis;
        this.connectTimeoutMillis = (int) connectTimeoutMillis;
    }

    /** Values and times to live of {@code keys} on {@code server}, in one round trip; absent keys are left out. */
    Map<String, Entry> get(InetSocketAddress server, List<String> keys) {
        Map<String, Entry> found = new LinkedHashMap<>();
        if (keys.isEmpty()) {
            return found;
        }
        StringBuilder request = new StringBuilder();
        for (String key : keys) {
            request.append("mg ").append(key).append(" t v\r\n");
        }
        request.append("mn\r\n");
        talk(server, "read " + keys.size() + " key(s)", (in, out) -> {
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (String key : keys) {
                String line = readLine(in);
                if (line.equals("EN")) {
                    continue;
                }
                String[] parts = line.split(" ");
                if (!parts[0].equals("VA") || parts.length < 3 || !parts[2].startsWith("t")) {
                    throw new HoldfastException(backend + " store at " + server + " answered '" + line + "' to mg " + key
                            + " (status and list need Memcached 1.6 or newer)");
                }
                byte[] value = in.readNBytes(Integer.parseInt(parts[1]));
                readLine(in);
                found.put(key, new Entry(value, Long.parseLong(parts[2].substring(1))));
            }
            String end = readLine(in);
            if (!end.equals("MN")) {
                throw new HoldfastException(backend + " store at " + server + " answered '" + end + "' to mn");
            }
            return null;
        });
        return found;
    }

    /**
     * Every key on {@code server} that starts with {@code prefix}, from Memcached's LRU crawler walking the
     * hash table ({@code metadump hash}): the walk of the LRUs ({@code metadump all}) misses keys that move
     * between LRU segments while it runs, so it is only the fallback for servers without the hash walk.
     */
    List<String> keys(InetSocketAddress server, String prefix) {
        List<String> keys = new ArrayList<>();
        talk(server, "list keys", (in, out) -> {
            String mode = "hash";
            for (int attempt = 1; ; attempt++) {
                out.write(("lru_crawler metadump " + mode + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String line = readLine(in);
                if (line.startsWith("BUSY") && attempt < CRAWLER_BUSY_RETRIES) {
                    sleep(50);
                    continue;
                }
                if ((line.startsWith("CLIENT_ERROR") || line.startsWith("ERROR")) && mode.equals("hash")) {
                    mode = "all";
                    continue;
                }
                while (!line.equals("END")) {
                    if (!line.startsWith("key=")) {
                        throw new HoldfastException(backend + " store at " + server + " answered '" + line
                                + "' to lru_crawler metadump; listing locks needs the LRU crawler (on by default since 1.5)");
                    }
                    int space = line.indexOf(' ');
                    String key = percentDecode(line.substring(4, space < 0 ? line.length() : space));
                    if (key.startsWith(prefix)) {
                        keys.add(key);
                    }
                    line = readLine(in);
                }
                return null;
            }
        });
        return keys;
    }

    private interface Conversation {
        Void run(InputStream in, OutputStream out) throws IOException;
    }

    private void talk(InetSocketAddress server, String what, Conversation conversation) {
        InetSocketAddress target = server.isUnresolved() ? new InetSocketAddress(server.getHostString(), server.getPort()) : server;
        try (Socket socket = new Socket()) {
            socket.connect(target, connectTimeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            conversation.run(new BufferedInputStream(socket.getInputStream()), socket.getOutputStream());
        } catch (IOException e) {
            throw new StoreUnavailableException(backend, address, "cannot " + what + " on " + MemcachedUri.hostPort(server) + ": " + e, e);
        } catch (NumberFormatException e) {
            throw new HoldfastException(backend + " store at " + address + ": unexpected reply to " + what + ": " + e.getMessage(), e);
        }
    }

    /** A line ended by LF (metadump) or CRLF (everything else), without its end. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed in the middle of a reply");
            }
            line.write(b);
        }
        String s = line.toString(StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** Memcached's metadump writes keys with %XX escapes. */
    static String percentDecode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
