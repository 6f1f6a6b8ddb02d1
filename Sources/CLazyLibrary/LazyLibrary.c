#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lazy_library.h"

void steward_lazy_library_resolve(struct steward_lazy_library *library) {
    const char *soname = getenv(library->test_hook);
    if (soname == NULL || soname[0] == 0) {
        soname = library->soname;
    }
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library->failure, sizeof library->failure, "cannot load %s: %s", soname, reason ? reason : "unknown error");
        return;
    }
    for (int index = 0; index < library->count; index++) {
        void *function = dlsym(handle, library->names[index]);
        if (function == NULL) {
            snprintf(library->failure, sizeof library->failure, "cannot load %s: it has no function %s", soname, library->names[index]);
            return;
        }
        library->functions[index] = function;
    }
}

const char *steward_lazy_library_load(struct steward_lazy_library *library) {
    pthread_once(&library->once, library->resolve);
    return library->failure[0] == 0 ? NULL : library->failure;
}

void *steward_lazy_library_function(struct steward_lazy_library *library, int index) {
    const char *failure = steward_lazy_library_load(library);
    if (failure != NULL) {
        fprintf(stderr, "Error: %s\n", failure);
        _exit(70);
    }
    return library->functions[index];
}
