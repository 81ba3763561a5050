import { domainToASCII } from "node:url";

const ASCII = /^[\x00-\x7f]*$/;

/**
 * A domain name in its ASCII form: an internationalized one ("bücher.example") as punycode
 * ("xn--bcher-kva.example"), which is what DNS, mail and a browser's location.hostname use; an
 * ASCII one as it is (domainToASCII would refuse some that are not host names, such as labels
 * with underscores). "" when an internationalized name has no ASCII form.
 */
export function asciiDomain(name: string): string {
  return ASCII.test(name) ? name : domainToASCII(name);
}
