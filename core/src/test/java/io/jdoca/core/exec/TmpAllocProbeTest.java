package io.jdoca.core.exec;

import io.jdoca.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;

class TmpAllocProbeTest {
    @Test
    void probe() {
        ProgressEngine pe = ProgressEngine.create();
        pe.addPollable(new PeNotificationHandleTest.Remote());
        pe.notificationHandle();
        System.out.println("A " + AllocationMeter.steadyState(200000, 50000, () -> {
            pe.requestNotification(); pe.notifyWork(); pe.clearNotification(); }).bytes());
        System.out.println("B " + AllocationMeter.steadyState(200000, 50000, () -> {
            pe.requestNotification(); pe.notifyWork(); pe.waitForNotification(1_000_000_000L); }).bytes());
        System.out.println("C " + AllocationMeter.steadyState(200000, 50000, () -> {
            pe.requestNotification(); pe.clearNotification(); }).bytes());
        System.out.println("D " + AllocationMeter.steadyState(200000, 50000, () -> {
            pe.notifyWork(); pe.clearNotification(); }).bytes());
        System.out.println("E " + AllocationMeter.steadyState(200000, 50000, () -> {
            pe.requestNotification(); pe.notifyWork(); pe.waitForNotification(1_000_000_000L);
            pe.clearNotification(); pe.progress(); }).bytes());
    }
}
