import Synchronization

// Statistics delivered once a second to every publisher and connected subscriber of the session.

extension Session {
    /// How often statistics are delivered.
    static let statisticsPeriod: Duration = .seconds(1)

    /// Starts the once-a-second statistics delivery (from the first `connected` until the session ends).
    func startStatisticsTimer(_ s: inout SessionState) {
        guard s.statisticsTimer == nil else { return }
        s.statisticsTimer = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.statisticsPeriod)
                guard let self else { return }
                self.deliverStatistics()
            }
        }
    }

    /// Takes the statistics of every publisher and connected subscriber somebody listens to (an event stream, or
    /// a statistics delegate) (outside the session's lock: they read the
    /// pipelines' and peers' own locks) and emits them, in order with the session's other events.
    func deliverStatistics() {
        let (publishers, subscribers) = state.withLock { s in
            (s.publishers.values.filter { $0.eventStreams.count > 0 || $0.delegate is any PublisherStatisticsDelegate },
             s.subscribers.values.filter {
                 $0.isConnected && ($0.eventStreams.count > 0 || $0.delegate is any SubscriberStatisticsDelegate)
             })
        }
        guard !publishers.isEmpty || !subscribers.isEmpty else { return }
        let sent = publishers.map { ($0, $0.statistics) }
        let received = subscribers.map { ($0, $0.statistics) }
        state.withLock { s in
            for (publisher, statistics) in sent where s.publishers.values.contains(where: { $0 === publisher }) {
                emit(.statisticsUpdated(statistics), for: publisher)
            }
            for (subscriber, statistics) in received
            where s.subscribers.values.contains(where: { $0 === subscriber }) {
                emit(.statisticsUpdated(statistics), for: subscriber)
            }
        }
    }
}
