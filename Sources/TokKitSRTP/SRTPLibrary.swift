import CSRTP

/// libsrtp's process-wide initialisation (`srtp_init`), run once on first use, thread-safe (Swift global).
enum SRTPLibrary {
    private static let status: srtp_err_status_t = srtp_init()

    /// Initialises libsrtp if needed; throws if it failed.
    static func ensureInitialized() throws(SRTPError) {
        try check(status)
    }
}
