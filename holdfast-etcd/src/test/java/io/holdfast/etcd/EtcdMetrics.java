package io.holdfast.etcd;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * One reading of a member's {@code /metrics}: every sample, keyed by its name and labels as etcd prints them
 * (for example {@code grpc_server_started_total{grpc_method="Txn",grpc_service="etcdserverpb.KV",grpc_type="unary"}}).
 * Two readings give what the member did in between: requests by gRPC method, Raft proposals, MVCC reads and
 * writes, watch events; these are counts, so they do not depend on how loaded the machine is.
 */
final class EtcdMetrics {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Map<String, Double> samples;

    private EtcdMetrics(Map<String, Double> samples) {
        this.samples = samples;
    }

    static EtcdMetrics read(EtcdCluster.Member member) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(member.clientUrl() + "/metrics"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET /metrics of " + member + " answered " + r.statusCode());
        }
        Map<String, Double> samples = new TreeMap<>();
        for (String line : r.body().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return new EtcdMetrics(samples);
    }

    /** The sum of the samples named {@code name} whose labels include every one of {@code labels} ({@code key="value"}). */
    double get(String name, String... labels) {
        double sum = 0;
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            String key = e.getKey();
            String sampleName = key.indexOf('{') < 0 ? key : key.substring(0, key.indexOf('{'));
            if (!sampleName.equals(name)) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= key.contains(label);
            }
            if (all) {
                sum += e.getValue();
            }
        }
        return sum;
    }

    /** How much {@code name} (with {@code labels}) grew from {@code before} to this reading. */
    double since(EtcdMetrics before, String name, String... labels) {
        return get(name, labels) - before.get(name, labels);
    }

    /** Requests of one gRPC method (a unary call, or a stream opened) started from {@code before} to this reading. */
    double calls(EtcdMetrics before, String method) {
        return since(before, "grpc_server_started_total", "grpc_method=\"" + method + "\"");
    }

    /** Messages the member received on {@code method} from {@code before} to this reading (a stream's requests). */
    double messages(EtcdMetrics before, String method) {
        return since(before, "grpc_server_msg_received_total", "grpc_method=\"" + method + "\"");
    }

    /** Every sample that changed since {@code before}, one per line, for a report. */
    String changesSince(EtcdMetrics before) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            double was = before.samples.getOrDefault(e.getKey(), 0.0);
            String key = e.getKey();
            if (e.getValue() != was && (key.startsWith("grpc_server_started_total") || key.startsWith("grpc_server_msg_received_total")
                    || key.startsWith("etcd_server_proposals_committed_total") || key.startsWith("etcd_mvcc_")
                    || key.startsWith("etcd_debugging_mvcc_events_total") || key.startsWith("etcd_debugging_mvcc_watch")
                    || key.startsWith("etcd_debugging_mvcc_slow_watcher") || key.startsWith("etcd_debugging_lease_renewed")
                    || key.startsWith("etcd_debugging_lease_granted") || key.startsWith("etcd_debugging_lease_revoked"))) {
                out.append(String.format("  %-110s %+.0f%n", key, e.getValue() - was));
            }
        }
        return out.toString();
    }
}
