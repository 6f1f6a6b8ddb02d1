#ifndef STEWARD_TEST_APP_TOKENIZER_H
#define STEWARD_TEST_APP_TOKENIZER_H

#include <sqlite3.h>

// What an app does that outside tools cannot follow: registers an FTS5 tokenizer of its
// own on its own connection, through fts5_api (https://sqlite.org/fts5.html, "Custom
// Tokenizers"). The tokenizer splits on ASCII punctuation and spaces and folds ASCII
// letters to lower case; bytes from 0x80 on are word bytes. Returns an SQLite result code.
int steward_test_register_app_tokenizer(sqlite3 *db, const char *name);

#endif
