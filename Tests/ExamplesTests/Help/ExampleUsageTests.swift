import ExampleHelp
import Testing

@Suite struct ExampleUsageTests {
    @Test func helpIsAskedWithEitherFlagAnywhereAfterTheProgramName() {
        #expect(ExampleUsage.asksForHelp(["basics", "--help"]))
        #expect(ExampleUsage.asksForHelp(["basics", "--seconds", "3", "-h"]))
        #expect(!ExampleUsage.asksForHelp(["basics"]))
        #expect(!ExampleUsage.asksForHelp(["--help"]))  // the program name itself
        #expect(!ExampleUsage.asksForHelp(["basics", "--helpful", "-hh", "help"]))
    }
}
