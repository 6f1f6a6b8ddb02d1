#include "app_tokenizer.h"

#include <stdlib.h>
#include <string.h>

// > To get a pointer to the fts5_api object, an application executes "SELECT fts5(?1)"
// > with a pointer bound to ?1 by sqlite3_bind_pointer() with the type "fts5_api_ptr".
static fts5_api *app_fts5_api(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) == SQLITE_OK) {
        sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
        sqlite3_step(statement);
    }
    sqlite3_finalize(statement);
    return api;
}

typedef struct app_tokenizer {
    int unused;
} app_tokenizer;

static int app_create(void *context, const char **arguments, int count, Fts5Tokenizer **out) {
    (void)context; (void)arguments; (void)count;
    app_tokenizer *tokenizer = calloc(1, sizeof(app_tokenizer));
    if (tokenizer == NULL) return SQLITE_NOMEM;
    *out = (Fts5Tokenizer *)tokenizer;
    return SQLITE_OK;
}

static void app_delete(Fts5Tokenizer *tokenizer) {
    free(tokenizer);
}

static int is_word_byte(unsigned char byte) {
    return byte >= 0x80 || (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z');
}

static int app_tokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                        int (*token)(void *, int, const char *, int, int, int)) {
    (void)tokenizer; (void)flags;
    char buffer[256];
    int index = 0;
    while (index < length) {
        while (index < length && !is_word_byte((unsigned char)text[index])) index++;
        int start = index;
        int size = 0;
        while (index < length && is_word_byte((unsigned char)text[index])) {
            unsigned char byte = (unsigned char)text[index];
            if (size < (int)sizeof(buffer)) buffer[size++] = (byte >= 'A' && byte <= 'Z') ? (char)(byte + 32) : (char)byte;
            index++;
        }
        if (size > 0) {
            int rc = token(context, 0, buffer, size, start, index);
            if (rc != SQLITE_OK) return rc;
        }
    }
    return SQLITE_OK;
}

int steward_test_register_app_tokenizer(sqlite3 *db, const char *name) {
    fts5_api *api = app_fts5_api(db);
    if (api == NULL) return SQLITE_ERROR;
    fts5_tokenizer methods = { app_create, app_delete, app_tokenize };
    return api->xCreateTokenizer(api, name, NULL, &methods, NULL);
}
