package io.idempotency.docs;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** docs/operating.md: who may read the calls that wait for a human over HTTP, and who may settle them. */
@Configuration(proxyBeanMethods = false)
class SettlingOverHttp {

    // tag::security[]
    @Bean
    SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
        http.securityMatcher(EndpointRequest.toAnyEndpoint())
            .authorizeHttpRequests((requests) -> requests
                // Settling a call decides what a repeat of it is told: operators only.
                .requestMatchers(EndpointRequest.to("idempotencycalls").withHttpMethod(HttpMethod.POST))
                .hasRole("IDEMPOTENCY_OPERATOR")
                .requestMatchers(EndpointRequest.to("health"))
                .permitAll()
                // Everything else, the stored arguments and errors of the calls included: the operations team.
                .anyRequest()
                .hasRole("OPS"))
            .httpBasic(Customizer.withDefaults())   // or the organisation's sign-on: any authenticated user
            // Actuator takes only JSON bodies, and answers no other origin while CORS is off.
            .csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()));
        return http.build();
    }
    // end::security[]

}
