/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Runs the kq_ops harness (fuzz/kq_ops.c) over files without libFuzzer:
 * every argument is a file or a directory of files (the committed corpus,
 * fuzz/corpus).  Exit 0 when every input passes; a model mismatch aborts
 * with the trace of the last operations.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "out of memory\n");
				exit(1);
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof *names);
			if (!names) {
				fprintf(stderr, "out of memory\n");
				exit(1);
			}
		}
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n]) {
			fprintf(stderr, "out of memory\n");
			exit(1);
		}
		snprintf(names[n], len, "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(names[i]) != 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s file-or-directory...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) != 0)
				rc = 1;
		} else if (run_file(argv[i]) != 0) {
			rc = 1;
		} else {
			count++;
		}
	}
	if (count == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	printf("replay: %d inputs passed\n", count);
	return rc;
}
