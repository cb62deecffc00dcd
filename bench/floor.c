/* bench/floor.c FILE... - the floor of bench/bubbles.sh: a plain scalar read-and-sum of the same
 * bytes (read() into one 1 MiB buffer, every run of digits accumulated as a number and summed),
 * i.e. the least a reader of these JSON files has to do. Prints the sum so it is not optimised out. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static char buf[1 << 20];
    uint64_t sum = 0, cur = 0;
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        if (fd < 0)
            return perror(argv[i]), 1;
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            for (ssize_t k = 0; k < n; k++) {
                unsigned d = (unsigned)(unsigned char)buf[k] - '0';
                if (d < 10) {
                    cur = cur * 10 + d;
                } else {
                    sum += cur;
                    cur = 0;
                }
            }
        close(fd);
    }
    printf("%llu\n", (unsigned long long)(sum + cur));
    return 0;
}
