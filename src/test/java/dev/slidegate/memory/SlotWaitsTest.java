package dev.slidegate.memory;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.Clock;
import dev.slidegate.core.SlotWaits;
import dev.slidegate.testing.SlotQueueScenarios;

/**
 * Waiting for a slot in process: two instances' {@link SlotWaits} over one {@link MemoryStore} (on the system clock:
 * tickets lapse in real time). The same scenarios run on Redis 7, Redis 6.2 and a cluster in the Redis store contracts.
 */
class SlotWaitsTest {

    private static SlotQueueScenarios.Fleet fleet() {
        MemoryStore shared = new MemoryStore(Clock.system(), 1000);
        return new SlotQueueScenarios.Fleet(new SlotWaits(shared, System::nanoTime), new SlotWaits(shared, System::nanoTime));
    }

    @Test
    void queuedCallsGetTheSlotInArrivalOrderAcrossInstances() throws Exception {
        SlotQueueScenarios.queuedCallsGetTheSlotInArrivalOrderAcrossInstances(fleet());
    }

    @Test
    void aCallRefusedAtItsMaxWaitLeavesTheQueue() throws Exception {
        SlotQueueScenarios.aCallRefusedAtItsMaxWaitLeavesTheQueue(fleet());
    }

    @Test
    void theTicketOfAnInstanceThatStoppedAskingLapses() throws Exception {
        SlotQueueScenarios.theTicketOfAnInstanceThatStoppedAskingLapses(fleet());
    }

    @Test
    void aFloodOfWaitersUsesEverySlotThatFrees() throws Exception {
        SlotQueueScenarios.aFloodOfWaitersUsesEverySlotThatFrees(fleet());
    }
}
