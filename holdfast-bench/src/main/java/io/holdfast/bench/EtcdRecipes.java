package io.holdfast.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.election.CampaignResponse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** etcd's own leader election, through jetcd's {@code Election} client: the incumbent of the leader shape on etcd. */
final class EtcdRecipes {
    private EtcdRecipes() {
    }

    static List<RecipeLibrary> of(List<String> endpoints, String prefix) {
        return List.of(new RecipeLibrary(Shape.LEADER, "jetcd " + Versions.of("jetcd") + " Election", "one jetcd `Client` per candidate "
                + "with one " + CoordinationLibraries.SESSION_SECONDS + " s lease (kept alive every 10 s); a candidacy is "
                + "`campaign(name, lease, proposal)` (completes in the server when elected); stepping down is `resign(leaderKey)`, "
                + "rejoining a new `campaign`", () -> {
                    Client client = CoordinationLibraries.jetcdClient(endpoints);
                    long lease = client.getLeaseClient().grant(CoordinationLibraries.SESSION_SECONDS).get(10, TimeUnit.SECONDS).getID();
                    Set<Long> leases = ConcurrentHashMap.newKeySet();
                    leases.add(lease);
                    ScheduledExecutorService keeper = CoordinationLibraries.keepAlive(client, leases);
                    ByteSequence proposal = ByteSequence.from(UUID.randomUUID().toString(), StandardCharsets.UTF_8);
                    return RecipeLibrary.Parts.leader((name, elected) -> {
                        CompletableFuture<CampaignResponse> campaign = client.getElectionClient()
                                .campaign(ByteSequence.from(prefix + "/" + name, StandardCharsets.UTF_8), lease, proposal);
                        campaign.thenRun(elected);
                        return () -> {
                            if (!campaign.cancel(true) && !campaign.isCompletedExceptionally()) { // elected: resign
                                client.getElectionClient().resign(campaign.join().getLeader()).get(10, TimeUnit.SECONDS);
                            } // else still campaigning (only at the stop): the lease's revocation at close removes the key
                        };
                    }, () -> {
                        keeper.shutdownNow();
                        try {
                            client.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
                        } finally {
                            client.close();
                        }
                    });
                }));
    }
}
