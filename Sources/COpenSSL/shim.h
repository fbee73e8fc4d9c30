// OpenSSL 3. Function-like macros and macro constants Swift cannot see are wrapped here.
#ifndef TOKKIT_COPENSSL_SHIM_H
#define TOKKIT_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

static inline int tk_ssl_ctx_pin_dtls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1
        && SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) == 1;
}
static inline uint64_t tk_ssl_op_no_query_mtu(void) { return SSL_OP_NO_QUERY_MTU; }
static inline long tk_dtls_set_link_mtu(SSL *ssl, long mtu) { return DTLS_set_link_mtu(ssl, mtu); }

/// DTLSv1_get_timeout: 1 and the time left in *usec when a retransmission timer runs, 0 otherwise.
static inline int tk_dtls_get_timeout(SSL *ssl, int64_t *usec) {
    struct timeval tv = {0, 0};
    if (DTLSv1_get_timeout(ssl, &tv) != 1) return 0;
    *usec = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
    return 1;
}
static inline long tk_dtls_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }

static inline void tk_bio_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void tk_bio_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }

/// A fresh ECDSA P-256 key (EVP_EC_gen is a macro over a variadic function).
static inline EVP_PKEY *tk_ec_p256_keygen(void) { return EVP_EC_gen("P-256"); }

static inline int tk_x509_name_add_cn(X509_NAME *name, const char *cn) {
    return X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0);
}
#endif
