import Testing

@testable import TokKit

@Suite struct ReconnectPolicyTests {
    @Test func delaysDoubleWithinJitterAndCap() {
        let p = ReconnectPolicy(maxAttempts: 10, initialDelay: .milliseconds(100), maxDelay: .seconds(1),
                                totalTimeout: .seconds(10))
        for _ in 0..<200 {
            let d1 = p.delay(beforeAttempt: 1)
            #expect(d1 >= .milliseconds(50) && d1 <= .milliseconds(100))
            let d3 = p.delay(beforeAttempt: 3)
            #expect(d3 >= .milliseconds(200) && d3 <= .milliseconds(400))
            let d9 = p.delay(beforeAttempt: 9)
            #expect(d9 >= .milliseconds(500) && d9 <= .seconds(1))
        }
    }

    @Test func hugeAttemptNumbersStayCapped() {
        let d = ReconnectPolicy.standard.delay(beforeAttempt: Int.max)
        #expect(d <= ReconnectPolicy.standard.maxDelay)
    }

    @Test func negativeAttemptsClampToZero() {
        #expect(ReconnectPolicy(maxAttempts: -3).maxAttempts == 0)
        #expect(ReconnectPolicy.never.maxAttempts == 0)
    }
}
