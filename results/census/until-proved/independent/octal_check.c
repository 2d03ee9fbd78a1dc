/*
 * octal_check.c -- an independent check of claimed periods of octal games.
 *
 * Written from the definition of octal games only (Winning Ways); it shares
 * no code with the nimsquare project's solver nor with any public solver.
 *
 * Build:   gcc -O2 -o octal_check octal_check.c
 * Run:     ./octal_check [-x] [-d] < claims.txt
 *
 * Input: one claim per line, "code preperiod period", e.g. "0.07 52 34".
 *   Blank lines and lines starting with '#' are ignored.
 *   The code is d0.d1d2...dt with d0 = 0 or 4 (".6" means "0.6").
 *   Digit d_k (k = 1..t) is a sum of bits:
 *     1: remove k stones from a heap of exactly k stones (leaving nothing);
 *     2: remove k stones and leave one nonempty heap;
 *     4: remove k stones and split the rest into two nonempty heaps.
 *   d0 = 4: split a heap into two nonempty heaps without removing stones.
 *
 * Output: one line per claim,
 *   "code preperiod period N verdict seconds"
 *   where verdict is "agree" or "DISAGREE:..." with the first failure, and
 *   seconds is the CPU time spent on that code.
 *
 * Algorithm.  g(0) = 0; for n = 1..N, g(n) = mex of the values of the options
 * of a heap of n (a pair of heaps a, b has value g(a) xor g(b)).  The mex uses
 * a stamp array indexed by value: seen[v] == n+1 means v is an option of n.
 * For a splitting move removing k stones, the remainder m = n - k is split as
 * a + (m - a) with a = 1..m/2, so each pair is visited once.
 *
 * Periodicity theorem (Guy and Smith): with t the number of digits after the
 * point and e' = max(e, 1), if g(n + p) = g(n) for all e <= n < 2e' + p + t,
 * then g(n + p) = g(n) for all n >= e.  The proof (induction on n, comparing
 * the options of n and n + p: in every option of n + p with total heap size
 * >= n + p - t >= 2e' + 2p, the largest heap is >= e' + p, and lowering it by
 * p keeps it >= e' >= 1, i.e. nonempty) only uses that every move removes at
 * most t stones, so it holds as well for d0 = 4 (a split removing 0 stones).
 * The check therefore computes g(0..N) with N = 2e' + 2p + t - 1 and tests:
 *   1. g(n + p) = g(n) for e <= n <= N - p (the theorem's range);
 *   2. p is the smallest period: no p' < p has g(n + p') = g(n) for all
 *      e <= n <= N - p' (since N - p' >= e + p, this range covers a whole
 *      period, so on a p-periodic tail the test is exact);
 *   3. e is the smallest preperiod: if e > 0 then g(e - 1 + p) != g(e - 1).
 * With -x the table is taken p positions further (N = 2e' + 3p + t - 1),
 * i.e. the stronger range n < 2e' + 2p + t is tested in 1.
 * With -d the table g(0..N) is also printed, on a line starting with '#'
 * after the verdict line (for testing on small codes).
 *
 * Cost: O(N^2 * s) time, where s is the number of splitting moves (digits
 * with bit 4, d0 = 4 included): about N^2 / 4 pair visits per splitting
 * digit.  Memory: 2 bytes per position.  Values must fit in 16 bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>

#define MAXDIGITS 32
#define NVAL 65536

static uint32_t seen[NVAL + 2];

/* Parse an octal code into d[0..t]; return t, or -1 if malformed. */
static int parse_code(const char *s, int *d)
{
    const char *dot = strchr(s, '.');
    int t = 0;
    if (!dot)
        return -1;
    if (dot == s)
        d[0] = 0;
    else if (dot == s + 1 && (s[0] == '0' || s[0] == '4'))
        d[0] = s[0] - '0';
    else
        return -1;
    for (const char *c = dot + 1; *c; c++) {
        if (*c < '0' || *c > '7' || t + 1 >= MAXDIGITS)
            return -1;
        d[++t] = *c - '0';
    }
    if (t == 0)
        return -1;
    return t;
}

/* Compute g(0..N) for the code d[0..t]; return 0, or -1 on value overflow. */
static int compute(const int *d, int t, long N, uint16_t *g)
{
    g[0] = 0;
    memset(seen, 0, sizeof seen);
    for (long n = 1; n <= N; n++) {
        uint32_t st = (uint32_t)n + 1; /* stamp; n + 1 never 0 for N < 2^32 - 1 */
        /* d0 = 4: split n = a + b, a, b >= 1 */
        if (d[0] & 4) {
            long m = n;
            for (long a = 1; a <= m / 2; a++)
                seen[g[a] ^ g[m - a]] = st;
        }
        for (int k = 1; k <= t && k <= n; k++) {
            int dk = d[k];
            long m = n - k;
            if ((dk & 1) && m == 0)
                seen[0] = st;
            if ((dk & 2) && m >= 1)
                seen[g[m]] = st;
            if ((dk & 4) && m >= 2) {
                for (long a = 1; a <= m / 2; a++)
                    seen[g[a] ^ g[m - a]] = st;
            }
        }
        uint32_t v = 0;
        while (seen[v] == st)
            v++;
        if (v >= NVAL)
            return -1;
        g[n] = (uint16_t)v;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int extra = 0, dump = 0;
    char line[512];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-x") == 0)
            extra = 1;
        else if (strcmp(argv[i], "-d") == 0)
            dump = 1;
        else {
            fprintf(stderr, "usage: %s [-x] [-d] < claims   (lines: code preperiod period)\n",
                    argv[0]);
            return 2;
        }
    }
    while (fgets(line, sizeof line, stdin)) {
        char code[128];
        long e, p;
        int d[MAXDIGITS];
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        if (sscanf(s, "%127s %ld %ld", code, &e, &p) != 3 || e < 0 || p < 1) {
            printf("%s", line);
            printf("# malformed line\n");
            fflush(stdout);
            continue;
        }
        int t = parse_code(code, d);
        if (t < 0) {
            printf("%s %ld %ld - MALFORMED-CODE 0\n", code, e, p);
            fflush(stdout);
            continue;
        }
        long e1 = e > 0 ? e : 1;
        long N = 2 * e1 + 2 * p + t - 1 + (extra ? p : 0);
        clock_t c0 = clock();
        uint16_t *g = malloc((size_t)(N + 1) * sizeof *g);
        if (!g) {
            printf("%s %ld %ld %ld OUT-OF-MEMORY 0\n", code, e, p, N);
            fflush(stdout);
            continue;
        }
        char verdict[256] = "agree";
        if (compute(d, t, N, g) < 0) {
            snprintf(verdict, sizeof verdict, "ERROR:value-exceeds-16-bits");
        } else {
            /* 1. the claimed period over the theorem's range */
            long bad = -1;
            for (long n = e; n + p <= N; n++)
                if (g[n + p] != g[n]) {
                    bad = n;
                    break;
                }
            if (bad >= 0) {
                long last = bad; /* smallest preperiod for p on the table */
                for (long n = N - p; n >= e; n--)
                    if (g[n + p] != g[n]) {
                        last = n;
                        break;
                    }
                snprintf(verdict, sizeof verdict,
                         "DISAGREE:period-%ld-fails-at-n=%ld(g(n)=%u,g(n+p)=%u);"
                         "last-failure-n=%ld", p, bad, g[bad], g[bad + p], last);
            } else {
                /* 2. smallest period */
                long pmin = p;
                for (long q = 1; q < p; q++) {
                    long n;
                    for (n = e; n + q <= N; n++)
                        if (g[n + q] != g[n])
                            break;
                    if (n + q > N) {
                        pmin = q;
                        break;
                    }
                }
                if (pmin != p) {
                    snprintf(verdict, sizeof verdict,
                             "DISAGREE:smaller-period-%ld-from-%ld", pmin, e);
                } else if (e > 0 && g[e - 1 + p] == g[e - 1]) {
                    /* 3. smallest preperiod */
                    long emin = e - 1;
                    while (emin > 0 && g[emin - 1 + p] == g[emin - 1])
                        emin--;
                    snprintf(verdict, sizeof verdict,
                             "DISAGREE:smaller-preperiod-%ld-for-period-%ld", emin, p);
                }
            }
        }
        double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
        printf("%s %ld %ld %ld %s %.3f\n", code, e, p, N, verdict, secs);
        if (dump) {
            printf("#");
            for (long n = 0; n <= N; n++)
                printf(" %u", g[n]);
            printf("\n");
        }
        fflush(stdout);
        free(g);
    }
    return 0;
}
