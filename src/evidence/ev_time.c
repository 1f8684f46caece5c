/* The one timestamp parser of evidence (sandprobe metadata and samples, A3S
 * bundles): ISO 8601 UTC as every writer prints it, checked against the
 * calendar (month lengths, leap years), turned into seconds since the epoch
 * without the C library's time zone machinery. */
#include "evidence/evidence.h"

#include <string.h>

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int num2(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

static bool leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int sp_ev_days_in_month(long year, int month)
{
	static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (month < 1 || month > 12)
		return 0;
	return d[month - 1] + (month == 2 && leap(year));
}

/* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil, written out) */
static long days_from_civil(long y, int m, int d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int sp_ev_parse_iso8601(const char *s, size_t n, double *epoch)
{
	/* 2026-01-01T00:00:00Z or 2026-01-01T00:00:00.123Z */
	if (n < 20 || n > 40 || s[n - 1] != 'Z')
		return -1;
	if (!digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2) || s[10] != 'T' ||
	    !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) || s[16] != ':' || !digits(s + 17, 2))
		return -1;
	long year = (long)num2(s) * 100 + num2(s + 2);
	int mon = num2(s + 5), day = num2(s + 8), hh = num2(s + 11), mm = num2(s + 14), ss = num2(s + 17);
	if (year < 1970 || day < 1 || day > sp_ev_days_in_month(year, mon) || hh > 23 || mm > 59)
		return -1;
	/* a leap second exists only as the last second of June or December */
	if (ss > 60 || (ss == 60 && !(hh == 23 && mm == 59 && ((mon == 6 && day == 30) || (mon == 12 && day == 31)))))
		return -1;
	double frac = 0;
	if (n > 20) {
		if (s[19] != '.' || n < 22 || !digits(s + 20, n - 21))
			return -1;
		double scale = 0.1;
		for (size_t i = 20; i < n - 1 && scale > 1e-12; i++, scale /= 10)
			frac += (s[i] - '0') * scale;
	}
	if (epoch)
		*epoch = (double)days_from_civil(year, mon, day) * 86400.0 + hh * 3600.0 + mm * 60.0 + ss + frac;
	return 0;
}

bool sp_ev_is_iso8601(const char *s, size_t n)
{
	return sp_ev_parse_iso8601(s, n, NULL) == 0;
}
