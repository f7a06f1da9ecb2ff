/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The simulator's subcommands (main.c dispatches). */
#ifndef SIM_CLI_H
#define SIM_CLI_H

/* check.c: run the asserting scenarios named (all if none) */
int sim_check_main(int argc, char **argv);
/* bench.c: write the benchmark figures named (all if none) into @dir */
int sim_bench_main(const char *dir, int argc, char **argv);
/* fabric.c: one of the fat-tree benchmark runs, by name, with its summary */
int sim_fab_main(int argc, char **argv);

#endif /* SIM_CLI_H */
