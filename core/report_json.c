/* report_json.c: placeholder */
